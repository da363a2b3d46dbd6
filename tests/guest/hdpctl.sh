# hdpctl against the real kernel: every command, its output and exit
# status; park of every disk returns with the outcome per disk once the
# devices answered; errors name the disk and the cause (missing disk,
# disabled disk, plain user, bad number, a value the kernel refuses);
# JSON documents (-j before or after the command, -p), several settings
# in one request, an add that finds the disk added already; `hdpctl
# monitor --json`, as a plain user, sees the parks made through configfs,
# netlink and unload_heads, and `monitor -t` stamps each event.
. ./lib.sh

modprobe hdprotect || { not_ok hdpctl "modprobe hdprotect failed"; exit 1; }
nullb_make nbc 1 || { not_ok hdpctl "cannot make null_blk disk nbc"; exit 1; }
H=/config/hdprotect/nbc

# run NAME WANT_STATUS COMMAND...: run COMMAND, output in /tmp/o (stdout)
# and /tmp/e (stderr); ok if it exits with WANT_STATUS.
run() {
	_n=$1 _want=$2
	shift 2
	"$@" >/tmp/o 2>/tmp/e
	_st=$?
	if [ $_st -eq "$_want" ]; then
		ok "$_n"
	else
		not_ok "$_n" "'$*' exited $_st, want $_want; stdout '$(cat /tmp/o)', stderr '$(cat /tmp/e)'"
	fi
}
# has NAME FILE TEXT...: ok if FILE holds every TEXT.
has() {
	_n=$1 _f=$2
	shift 2
	for _t; do
		grep -qF -- "$_t" "$_f" || { not_ok "$_n" "'$_t' not in '$(cat "$_f")'"; return; }
	done
	ok "$_n"
}
# json FILE DISK KEY: the value of KEY in the JSON line of DISK in FILE.
json() {
	grep "\"disk\":\"$2\"" "$1" | head -n 1 | sed -n "s/.*\"$3\":\(\"[^\"]*\"\|[^,}]*\).*/\1/p"
}

run status-of-nothing 0 hdpctl status
expect_eq status-of-nothing-prints-nothing "$(cat /tmp/o)" ""
run status-json-of-nothing 0 hdpctl status --json
expect_eq status-json-of-nothing-is-an-empty-array "$(cat /tmp/o)" "[]"
run version 0 hdpctl --version
has version-names-tool-and-abi /tmp/o "hdpctl 1." "LIBHDP_1"
run version-short 0 hdpctl -V
run park-all-of-nothing-fails 1 hdpctl park
has park-all-of-nothing-says-enable-one /tmp/e "hdpctl: park:" "hdpctl enable DISK" \
	"Error: no disk has protection enabled."
expect_eq park-all-of-nothing-kernel-first "$(head -n 1 /tmp/e)" "Error: no disk has protection enabled."

run add 0 hdpctl add nbc --timeout 7 --enable
expect_eq add-sets-timeout-and-enable "$(cat $H/enable) $(cat $H/timeout) $(cat $H/method)" "1 7 auto"
# Adding again: no error with the settings it has (a boot script may run
# twice), an error naming each setting that differs.
run add-again-same-settings 0 hdpctl add nbc --timeout 7 --enable
run add-again-nothing-asked 0 hdpctl add nbc
run add-again-other-settings-fails 1 hdpctl add nbc --timeout 8 --method standby
has add-again-names-disk-and-conflicts /tmp/e "nbc: already under protection, with a timeout of 7000 ms, not 8000 ms" \
	"with the method auto, not standby" "hdpctl set"
expect_eq add-again-changes-nothing "$(cat $H/enable) $(cat $H/timeout) $(cat $H/method)" "1 7 auto"

run status-one 0 hdpctl status nbc
has status-one-line /tmp/o "nbc: idle, enabled, timeout 7000 ms, max hold 30000 ms, method auto (unload standby), parks 0, failures 0"
run status-json 0 hdpctl status --json
expect_eq status-json-one-line-per-disk "$(wc -l </tmp/o)" 1
expect_eq status-json-fields "$(json /tmp/o nbc state) $(json /tmp/o nbc enabled) $(json /tmp/o nbc timeout_ms) $(json /tmp/o nbc method) $(json /tmp/o nbc devt)" \
	"\"idle\" true 7000 \"auto\" \"$(cat /sys/block/nbc/dev)\""
case $(cat /tmp/o) in
'[{"disk":"nbc",'*'}]') ok status-json-is-one-array ;;
*) not_ok status-json-is-one-array "$(cat /tmp/o)" ;;
esac
run status-json-global 0 hdpctl -j status nbc
expect_eq status-json-global-is-the-same "$(hdpctl status nbc --json | sed 's/"remaining_ms":[0-9]*//')" \
	"$(sed 's/"remaining_ms":[0-9]*//' /tmp/o)"
run status-pretty 0 hdpctl status -p
expect_eq status-pretty-indents "$(sed -n '1p;2p;3p' /tmp/o | tr '\n' '|')" '[|  {|    "disk": "nbc",|'
expect_eq status-pretty-ends "$(tail -n 2 /tmp/o | tr '\n' '|')" '  }|]|'

run set-timeout 0 hdpctl set nbc timeout 3
run set-method 0 hdpctl set nbc method standby
expect_eq set-shows-in-configfs "$(cat $H/timeout) $(cat $H/method)" "3 standby"
run set-method-back 0 hdpctl set nbc method auto
# Several settings in one request, all or none.
run set-several 0 hdpctl set nbc --disable --timeout 4 --method standby
expect_eq set-several-shows-in-configfs "$(cat $H/enable) $(cat $H/timeout) $(cat $H/method)" "0 4 standby"
run set-several-refused 1 hdpctl set nbc --enable --timeout 31 --method auto
expect_eq set-several-refused-changes-nothing "$(cat $H/enable) $(cat $H/timeout) $(cat $H/method)" "0 4 standby"
run set-nothing 2 hdpctl set nbc
run set-enable-and-disable 2 hdpctl set nbc --enable --disable
run set-several-back 0 hdpctl set nbc --enable --timeout 3 method auto
expect_eq set-several-back-shows "$(cat $H/enable) $(cat $H/timeout) $(cat $H/method)" "1 3 auto"
run disable 0 hdpctl disable nbc
expect_eq disable-shows-in-configfs "$(cat $H/enable)" 0

# Errors: each names the disk and the cause, exit 1; bad input, exit 2.
run park-disabled-fails 1 hdpctl park nbc
has park-disabled-says-not-enabled /tmp/e "nbc:" "not enabled"
run enable 0 hdpctl enable nbc
run status-missing-fails 1 hdpctl status nosuch
has status-missing-names-disk-and-cause /tmp/e "nosuch:" "not under protection" "hdpctl add"
run add-missing-fails 1 hdpctl add nosuch
has add-missing-says-no-such-disk /tmp/e "nosuch:" "no such disk"
run park-bad-number 2 hdpctl park nbc --for abc
has park-bad-number-says-which /tmp/e "abc"
# Neither hdpctl nor libhdp repeats the kernel's limits: the kernel
# refuses, and its message, first, names the setting and the range.
run set-timeout-out-of-range 1 hdpctl set nbc timeout 31
has set-timeout-out-of-range-kernel-says-which-and-the-range /tmp/e \
	"Error: timeout_ms: integer out of range (1 to 30000)." "hdpctl: nbc: a value is out of range"
expect_eq set-timeout-out-of-range-kernel-first "$(head -n 1 /tmp/e)" \
	"Error: timeout_ms: integer out of range (1 to 30000)."
run park-for-out-of-range 1 hdpctl park nbc --for 30.001
has park-for-out-of-range-kernel-says-the-range /tmp/e "integer out of range (1 to 30000)"
run unknown-command 2 hdpctl frobnicate
run command-help 0 hdpctl park --help
has command-help-shows-usage /tmp/o "park"
before="$(cat $H/enable) $(cat $H/timeout) $(cat $H/method) $(cat $H/state) $(cat $H/stats)"
run nonroot-park-fails 1 su user -c "hdpctl park nbc"
has nonroot-park-says-cap-sys-admin /tmp/e "hdpctl: nbc:" "Error: needs CAP_SYS_ADMIN."
run nonroot-set-fails 1 su user -c "hdpctl set nbc timeout 5"
has nonroot-set-says-cap-sys-admin /tmp/e "hdpctl: nbc:" "Error: needs CAP_SYS_ADMIN."
run nonroot-unpark-fails 1 su user -c "hdpctl unpark nbc"
has nonroot-unpark-says-cap-sys-admin /tmp/e "hdpctl: nbc:" "Error: needs CAP_SYS_ADMIN."
run nonroot-status-works 0 su user -c "hdpctl status nbc"
expect_eq errors-changed-nothing "$(cat $H/enable) $(cat $H/timeout) $(cat $H/method) $(cat $H/state) $(cat $H/stats)" "$before"

# One disk, then every disk at once.
run park-one 0 hdpctl park nbc --for 2
has park-one-prints-outcome /tmp/o "nbc: parked for 2000 ms (unload), device answered in"
expect_eq park-one-parked "$(cat $H/state)" parked
run unpark-one 0 hdpctl unpark nbc
expect_eq unpark-one-idle "$(cat $H/state)" idle

disks="nbc"
for d in ahci0 ahci1 piix0; do
	n=$(disk $d)
	hdpctl add "$n" --enable || not_ok "add-$d" "hdpctl add $n failed"
	disks="$disks $n"
done
run park-all 0 hdpctl park --for 30 --json
expect_eq park-all-one-outcome-per-disk "$(wc -l </tmp/o)" 4
expect_eq park-all-json-is-one-array "$(head -c 1 /tmp/o)$(tail -c 2 /tmp/o | head -c 1)" "[]"
for n in $disks; do
	st=$(cat /config/hdprotect/$n/state)
	res=$(json /tmp/o "$n" result)
	done_ns=$(json /tmp/o "$n" complete_ns)
	if [ "$st $res" = "parked 0" ] && [ "${done_ns:-0}" -gt 0 ]; then
		ok "park-all-$n-parked-and-answered"
	else
		not_ok "park-all-$n-parked-and-answered" "state $st, outcome: $(grep "\"$n\"" /tmp/o)"
	fi
done
run unpark-all 0 hdpctl unpark
for n in $disks; do
	expect_eq "unpark-all-$n-idle" "$(cat /config/hdprotect/$n/state)" idle
done

# Two named disks: one request parks both at once (the second park
# requested before the first device, nbc, made to take 100 ms as a disk
# does, answered), and each disk's outcome is printed.
set -- $disks
echo 100 >/config/nullb/nbc/park_delay_ms
run park-two 0 hdpctl park "$1" "$2" --for 30 --json
echo 0 >/config/nullb/nbc/park_delay_ms
expect_eq park-two-one-outcome-per-disk "$(wc -l </tmp/o) $(json /tmp/o "$1" result) $(json /tmp/o "$2" result)" "2 0 0"
r2=$(json /tmp/o "$2" request_ns)
c1=$(json /tmp/o "$1" complete_ns)
if [ -n "$r2" ] && [ -n "$c1" ] && [ "$r2" -lt "$c1" ]; then
	ok park-two-at-once
else
	not_ok park-two-at-once "$2 requested at $r2, $1 answered at $c1"
fi
run park-two-text 0 hdpctl park "$2" "$3" --for 30
has park-two-prints-both /tmp/o "$2: parked for 30000 ms" "$3: parked for 30000 ms"
run unpark-two 0 hdpctl unpark "$2" "$3"

# The monitor, as a plain user: parks through configfs, netlink and
# unload_heads. It is ready once it saw a change made to wake it.
sda=$(disk ahci0)
su user -c "hdpctl monitor --json" >/tmp/mon.out 2>/tmp/mon.err &
hdpctl monitor -t >/tmp/mon-t.out 2>&1 &
tpid=$!
mpid=$!
t0=$(uptime_ms)
i=0
while [ ! -s /tmp/mon.out ] && [ $i -lt 150 ]; do
	echo 8 >$H/timeout
	echo 7 >$H/timeout
	msleep 200
	i=$((i + 1))
done
if [ -s /tmp/mon.out ]; then
	ok monitor-starts
	echo "# the monitor heard its first event after $(($(uptime_ms) - t0)) ms"
else
	not_ok monitor-starts "no event within 30 s: $(cat /tmp/mon.err)"
fi
echo 1 >$H/park
hdpctl park nbc --for 1 >/dev/null
t0=$(uptime_ms)
# QEMU's IDENTIFY lacks the unload bit: allow it (-1), as hdapsd -f
# does, and forbid it again (-2) afterwards.
echo -1 >/sys/block/$sda/device/unload_heads
echo 500 >/sys/block/$sda/device/unload_heads 2>/dev/null
echo "# unload_heads took $(($(uptime_ms) - t0)) ms"
i=0
while [ $i -lt 150 ]; do
	grep -q '"cause":"unload_heads"' /tmp/mon.out && break
	msleep 200
	i=$((i + 1))
done
echo -2 >/sys/block/$sda/device/unload_heads
kill $(pidof hdpctl)
wait $mpid
expect_eq monitor-exits-0-on-sigterm "$?" 0
wait $tpid
# -t: each line starts with the wall-clock time of the change
if grep -q '^20[0-9-]*T[0-9:.]*[-+][0-9]\{4\} \[seq [0-9]*\] nbc: parked' /tmp/mon-t.out &&
	! grep -qv '^20[0-9-]*T' /tmp/mon-t.out; then
	ok monitor-timestamps-each-event
else
	not_ok monitor-timestamps-each-event "$(head -n 3 /tmp/mon-t.out)"
fi
grep '"event":"parked"' /tmp/mon.out >/tmp/mon.parked
expect_eq monitor-sees-configfs-and-netlink-parks "$(grep -c '"disk":"nbc"' /tmp/mon.parked)" 2
has monitor-sees-configfs-park-length /tmp/mon.parked '"park_ms":1000'
if grep -q "\"cause\":\"unload_heads\",.*\"disk\":\"$sda\"" /tmp/mon.parked; then
	ok monitor-sees-unload-heads
else
	not_ok monitor-sees-unload-heads "no unload_heads park of $sda in: $(cat /tmp/mon.out) $(cat /tmp/mon.err)"
fi
if grep -qv '^{"event":' /tmp/mon.out; then
	not_ok monitor-json-lines-only "$(grep -v '^{"event":' /tmp/mon.out | head -n 3)"
else
	ok monitor-json-lines-only
fi

run remove 0 hdpctl remove nbc
expect_eq remove-removes-item "$([ -d $H ] && echo present || echo gone)" gone
for n in $disks; do
	[ "$n" = nbc ] || hdpctl remove "$n"
done
nullb_remove nbc
exit $HDP_FAILED
