# The hdprotect module cannot be unloaded while configfs items exist;
# after rmdir of every item it unloads and loads again, and no park state
# survives: the family is gone while unloaded and comes back empty.
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
if genl-resolve hdprotect >/dev/null 2>&1; then
	not_ok family-gone-while-unloaded "genl-resolve still finds hdprotect"
else
	ok family-gone-while-unloaded
fi
check module-reloads modprobe hdprotect
expect_eq reloaded-family-has-no-items "$(hdp-nl dump)" ok
mkdir $H
expect_eq no-park-survives "$(cat $H/state) $(cat $H/park) $(cat $H/enable)" "idle 0 0"
g=$(hdp-nl get nbm)
case $g in
*"state=idle enabled=0 "*) ok get-after-reload-idle ;;
*) not_ok get-after-reload-idle "$g" ;;
esac
rmdir $H
nullb_remove nbm
