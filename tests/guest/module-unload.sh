# Modules that go while a disk is protected. The driver modules under an
# AHCI disk (ahci, then sd_mod) are removed while its hdprotect item is
# armed and while it is parked for 20 s: rmmod returns at once, not at
# the park's end; the item reads gone and every write to it fails with
# ENODEV; once the module is loaded again, a new item for the disk parks
# it. While a process waits to write to a parked disk, its open of the
# disk pins both modules: rmmod is refused, the disk stays parked, and
# the write completes at the unpark. The hdprotect module's reference
# count is its items'; the console is searched for kernel reports
# afterwards, as for every test.
# A kernel that builds ahci and sd_mod in (make check's test
# configuration, with KASAN, lockdep and kmemleak) cannot remove them:
# there the same cases unbind the drivers instead (the AHCI controller
# from ahci, ahci1's SCSI disk from sd), the path rmmod takes but for the
# module's own memory, and the pinning case is a skip that says so.
# make check-deb's modular kernel removes the modules (tests/deb).
# Cost: about 20 s on the modular kernel, 25 s on the test kernel.
. ./lib.sh

modprobe hdprotect || { not_ok module-unload "modprobe hdprotect failed"; exit 1; }

# refs MODULE: MODULE's reference count in /proc/modules (0 if built in).
refs() {
	_r=$(sed -n "s/^$1 [0-9]* \([0-9]*\) .*/\1/p" /proc/modules)
	echo "${_r:-0}"
}

# The hdprotect module's reference count is its items' (configfs takes
# two for each: its subsystem's and the item's).
d=$(disk ahci0) || { not_ok module-unload "no /dev/hdp/ahci0"; exit 1; }
d1=$(disk ahci1) || { not_ok module-unload "no /dev/hdp/ahci1"; exit 1; }
r0=$(refs hdprotect)
mkdir /config/hdprotect/$d
r1=$(refs hdprotect)
mkdir /config/hdprotect/$d1
r2=$(refs hdprotect)
if [ "$r1" -gt "$r0" ] && [ $((r2 - r1)) -eq $((r1 - r0)) ]; then
	ok hdprotect-items-hold-the-module
else
	not_ok hdprotect-items-hold-the-module "references $r0, then $r1 and $r2 with one and two items"
fi
rmdir /config/hdprotect/$d /config/hdprotect/$d1
expect_eq hdprotect-item-removal-lets-go "$(refs hdprotect)" "$r0"

# disks_back N: up to 15 s for N sd disks to be there again, with their
# /dev/hdp links; fails if they did not come.
disks_back() {
	_i=0
	while [ "$(ls -d /sys/block/sd* 2>/dev/null | wc -l)" -lt "$1" ] && [ $_i -lt 150 ]; do
		msleep 100
		_i=$((_i + 1))
	done
	link-disks
	[ "$(ls -d /sys/block/sd* 2>/dev/null | wc -l)" -ge "$1" ]
}

# remove MODULE, restore MODULE: rmmod and modprobe it, or where it is
# built in, unbind its devices from it and bind them again.
remove() {
	if [ -z "$builtin" ]; then
		rmmod "$1" 2>&1
	elif [ "$1" = ahci ]; then
		# The PCI function of ahci0's controller.
		pci=$(readlink -f "/sys/block/$(disk ahci0)/device")
		pci=${pci#*/pci0000:00/}
		pci=${pci%%/*}
		echo "$pci" >/sys/bus/pci/drivers/ahci/unbind
	else
		# Only the disk's own: on 6.1, a disk that sd was unbound
		# from and bound to again no longer suspends at runtime,
		# which protect-pm needs of ahci0.
		sds=$(readlink -f "/sys/block/$(disk $disk)/device")
		sds=${sds##*/}
		echo "$sds" >/sys/bus/scsi/drivers/sd/unbind
	fi
}
restore() {
	if [ -z "$builtin" ]; then
		modprobe "$1"
	elif [ "$1" = ahci ]; then
		echo "$pci" >/sys/bus/pci/drivers/ahci/bind
	else
		for l in $sds; do
			echo "$l" >/sys/bus/scsi/drivers/sd/bind
		done
	fi
}

# unload_case MODULE STATE: the item of the disk $disk armed (STATE
# idle) or parked (STATE parked), then remove MODULE and restore it.
unload_case() {
	n=$1-$how-$2
	nsd=$(ls -d /sys/block/sd* | wc -l)
	d=$(disk $disk) || { not_ok "$n" "no /dev/hdp/$disk"; return; }
	H=/config/hdprotect/$d
	mkdir $H && echo 1 >$H/enable
	[ "$2" = parked ] && echo 20 >$H/park
	expect_eq "$n-before" "$(cat $H/state)" "$2"
	t0=$(uptime_ms)
	# Not in a subshell: restore needs what remove found.
	if remove "$1" >/tmp/module-unload.out 2>&1; then
		ok "$n-$how"
	else
		not_ok "$n-$how" "$(cat /tmp/module-unload.out)"
	fi
	rm -f /tmp/module-unload.out
	t=$(($(uptime_ms) - t0))
	# The park is 20 s: its end is not what the removal waited for.
	if [ $t -lt 10000 ]; then
		ok "$n-returns-at-once"
	else
		not_ok "$n-returns-at-once" "$how $1 took $t ms"
	fi
	expect_eq "$n-item-reads-gone" "$(cat $H/state)" gone
	for f in park enable timeout method; do
		expect_eq "$n-gone-item-refuses-$f" "$(try-op write $H/$f 1)" ENODEV
	done
	rmdir $H
	restore "$1" || not_ok "$n-restore" "$1 did not come back"
	if ! disks_back "$nsd"; then
		not_ok "$n-disks-back" "$(ls /sys/block | tr '\n' ' ')after restoring $1"
		return
	fi
	d=$(disk $disk) || { not_ok "$n-disks-back" "no /dev/hdp/$disk after restoring $1"; return; }
	ok "$n-disks-back"
	H=/config/hdprotect/$d
	expect_eq "$n-new-item" "$(try-op mkdir $H)" ok
	echo 1 >$H/enable
	expect_eq "$n-new-item-parks" "$(try-op write $H/park 1)" ok
	expect_eq "$n-new-item-parked" "$(cat $H/state)" parked
	_i=0
	while [ "$(cat $H/state)" = parked ] && [ $_i -lt 50 ]; do
		msleep 100
		_i=$((_i + 1))
	done
	expect_eq "$n-new-item-park-answered" "$(wait_stat $H parks 1) $(stat_of $H failures)" "1 0"
	rmdir $H
}

builtin=
for m in ahci sd_mod; do
	grep -q "^$m " /proc/modules || builtin="$builtin $m"
done
if [ -n "$builtin" ]; then
	how=unbind
else
	how=rmmod
fi
disk=ahci0
unload_case ahci idle
unload_case ahci parked
# sd's unbind takes ahci1, whose runtime PM no test needs (protect-rebind
# unbinds it too); rmmod sd_mod takes every disk.
[ -n "$builtin" ] && disk=ahci1
unload_case sd_mod idle
unload_case sd_mod parked
disk=ahci0
if [ -n "$builtin" ]; then
	skip held-write-pins-the-modules "this kernel builds${builtin} in: nothing to pin (make check-deb's modular kernel tests it)"
	exit 0
fi

# A write waiting on a parked disk holds the disk open, which pins the
# disk's driver (sd_mod) and its host's (ahci): neither goes.
n=held-write-pins-the-modules
d=$(disk ahci0)
H=/config/hdprotect/$d
mkdir $H
echo 1 >$H/enable
echo 20 >$H/park
nsd=$(ls -d /sys/block/sd* | wc -l)
r0=$(refs sd_mod)
dd if=/dev/zero of=/dev/$d bs=4096 count=1 seek=300 oflag=direct 2>/dev/null &
ddpid=$!
# Until dd holds the disk open (sd_mod's count rises) and waits in the
# kernel (state D): up to 10 s.
_i=0
until [ "$(refs sd_mod)" -gt "$r0" ] && [ "$(cut -d' ' -f3 /proc/$ddpid/stat 2>/dev/null)" = D ]; do
	[ $_i -lt 100 ] || break
	msleep 100
	_i=$((_i + 1))
done
expect_eq "$n-write-waits" "$(cut -d' ' -f3 /proc/$ddpid/stat 2>/dev/null)" D
for m in ahci sd_mod; do
	if rmmod $m 2>/dev/null; then
		not_ok "$n-$m-refused" "rmmod $m succeeded under a parked disk's open"
		modprobe $m
	else
		ok "$n-$m-refused"
	fi
done
expect_eq "$n-still-parked" "$(cat $H/state) $(kill -0 $ddpid 2>/dev/null && echo waiting)" "parked waiting"
echo 0 >$H/park
wait $ddpid
expect_eq "$n-write-completes-at-the-unpark" $? 0
rmdir $H
# Every disk still there (or back, had an rmmod wrongly succeeded).
disks_back "$nsd" || not_ok "$n-disks-stay" "$(ls /sys/block | tr '\n' ' ')"
