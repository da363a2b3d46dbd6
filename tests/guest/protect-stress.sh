# Park/unpark cycles while a writer and a reader run with O_DIRECT, on
# null_blk and on an AHCI disk: no I/O error, no corrupt block, no lost
# write, and on null_blk no request dispatched while parked.
#
# `make check` runs 40 cycles, `make soak` 200. 40 go twice through the
# 20 park lengths park-stress takes in turn (5 to 24 ms) while the writer
# and the reader keep requests coming: a park that lets a request through
# (null_blk counts it) or an unpark that loses or fails a held request
# shows within them; the soak looks for the rarer interleavings.
. ./lib.sh

CYCLES=$(by_mode 40 200)

modprobe hdprotect || { not_ok protect-stress "modprobe hdprotect failed"; exit 1; }
nullb_make nbs 1 || { not_ok protect-stress "cannot make null_blk disk nbs"; exit 1; }
for d in nbs $(disk ahci0); do
	H=/config/hdprotect/$d
	mkdir $H && echo 1 >$H/enable
	if out=$(park-stress "/dev/$d" $H "$CYCLES" 2>&1); then
		ok "stress-$CYCLES-cycles-$d"
	else
		not_ok "stress-$CYCLES-cycles-$d" "$out"
	fi
	echo "hdp-info: park-stress $d: $out" >/dev/kmsg
	rmdir $H
done
expect_eq stress-nothing-dispatched-while-parked "$(cat /config/nullb/nbs/parked_dispatch)" 0
nullb_remove nbs
