# The hdprotect module cannot be unloaded while configfs items exist;
# after rmdir of every item it unloads and loads again, and no park state
# survives: the family is gone while unloaded and comes back empty.
# Resolving the family by name, and libhdp's add, load the module.
. ./lib.sh

modprobe hdprotect || { not_ok netlink-module "modprobe hdprotect failed"; exit 1; }
nullb_make nbm 1 || { not_ok netlink-module "cannot make null_blk disk nbm"; exit 1; }
H=/config/hdprotect/nbm
mkdir $H
echo 1 >$H/enable
echo 20 >$H/park
if rmmod hdprotect 2>/dev/null; then
	not_ok module-unload-refused-with-items "rmmod hdprotect succeeded"
else
	expect_eq module-unload-refused-with-items "$(grep -c '^hdprotect ' /proc/modules) $(cat $H/state)" "1 parked"
fi
rmdir $H
for d in /config/hdprotect/*; do
	[ -d "$d" ] && rmdir "$d"
done
check module-unloads-without-items rmmod hdprotect
# A listing of the families loads nothing.
expect_eq family-gone-while-unloaded "$(genl ctrl list 2>/dev/null | grep -c 'Name: hdprotect')" 0
# Resolving the family by name loads the module (its genetlink alias).
check family-resolve-loads-the-module genl-resolve hdprotect
expect_eq module-loaded-by-the-family "$(grep -c '^hdprotect ' /proc/modules)" 1
expect_eq reloaded-family-has-no-items "$(hdp-nl dump)" ok
mkdir $H
expect_eq no-park-survives "$(cat $H/state) $(cat $H/park) $(cat $H/enable)" "idle 0 0"
g=$(hdp-nl get nbm)
case $g in
*"state=idle enabled=0 "*) ok get-after-reload-idle ;;
*) not_ok get-after-reload-idle "$g" ;;
esac
rmdir $H
# libhdp's add loads the module the same way when configfs lacks it.
check module-unloads-again rmmod hdprotect
check add-loads-the-module hdpctl add nbm
expect_eq add-made-the-item "$(grep -c '^hdprotect ' /proc/modules) $([ -d $H ] && echo item)" "1 item"
rmdir $H
nullb_remove nbm
