# The hdprotect module cannot be unloaded while configfs items exist;
# after rmdir of every item it unloads and loads again, and no park state
# survives: the family is gone while unloaded and comes back empty.
# Resolving the family by name, and libhdp's add, load the module.
# A monitor (hdpctl monitor) and a live view (hdp-applet) running across
# an unload and a load hear hdprotect go and come back, then its events;
# the applet lists the disks again through its request socket, which
# still has the old family's id: libhdp looks the family up again.
. ./lib.sh

modprobe hdprotect || { not_ok netlink-module "modprobe hdprotect failed"; exit 1; }
nullb_make nbm 1 || { not_ok netlink-module "cannot make null_blk disk nbm"; exit 1; }
H=/config/hdprotect/nbm
mkdir $H
echo 1 >$H/enable
echo 20 >$H/park
if rmmod hdprotect 2>/dev/null; then
	not_ok hdprotect-unload-refused-with-items "rmmod hdprotect succeeded"
else
	expect_eq hdprotect-unload-refused-with-items "$(grep -c '^hdprotect ' /proc/modules) $(cat $H/state)" "1 parked"
fi
rmdir $H
for d in /config/hdprotect/*; do
	[ -d "$d" ] && rmdir "$d"
done
check hdprotect-unloads-without-items rmmod hdprotect
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

hdpctl monitor --json >/tmp/mod-mon.out 2>/tmp/mod-mon.err &
mpid=$!
hdp-applet --timeout 120 --print-view >/tmp/mod-app.out 2>/tmp/mod-app.err &
apid=$!
# The monitor is ready once it heard an item made to wake it.
i=0
while [ ! -s /tmp/mod-mon.out ] && [ $i -lt 100 ]; do
	mkdir $H && rmdir $H
	msleep 200
	i=$((i + 1))
done
wait_line /tmp/mod-app.out '^listening: '
check module-unloads-under-listeners rmmod hdprotect
wait_line /tmp/mod-mon.out '"event":"kernel-gone"'
wait_line /tmp/mod-app.out '^waiting: hdprotect is gone'
check module-loads-under-listeners modprobe hdprotect
wait_line /tmp/mod-mon.out '"event":"kernel-back"'
wait_line /tmp/mod-app.out '^resync: '
mkdir $H && echo 1 >$H/enable
wait_line /tmp/mod-mon.out '"event":"changed".*"disk":"nbm".*"enabled":true'
wait_line /tmp/mod-app.out '^view: nbm idle'
kill $mpid $apid
wait $mpid
expect_eq monitor-exits-0-after-reload "$?" 0
wait $apid
expect_eq applet-exits-0-after-reload "$?" 0
# in order: gone, back, then the new family's events
order=$(sed -n 's/^{"event":"\([a-z-]*\)".*/\1/p' /tmp/mod-mon.out |
	awk '/kernel-gone/ { g = NR } /kernel-back/ { b = NR } /added/ { a = NR }
	     END { print (g && b > g && a > b) ? "gone back added" : "got " g " " b " " a }')
expect_eq monitor-hears-the-family-go-and-come-back "$order" "gone back added"
order=$(awk '/^waiting: hdprotect is gone/ { g = NR } /^resync: 0 disks/ { r = NR }
	     /^view: nbm idle/ { v = NR }
	     END { print (g && r > g && v > r) ? "gone resync view" : "got " g " " r " " v }' /tmp/mod-app.out)
expect_eq applet-lists-again-after-reload "$order" "gone resync view"
expect_eq applet-no-error-after-reload "$(cat /tmp/mod-app.err)" ""
case $(grep '"disk":"nbm"' /tmp/mod-app.out) in
*'"enabled":true'*) ok applet-view-has-the-new-item ;;
*) not_ok applet-view-has-the-new-item "$(cat /tmp/mod-app.out)" ;;
esac
rmdir $H
nullb_remove nbm
