# The generic netlink family: it resolves by name and `genl ctrl list`
# shows it with its group; GET, dump, SET, PARK and UNPARK succeed and
# agree with configfs; a PARK replies before the devices answer, with a
# cookie that their PARKED events carry; a PARK naming several disks, or
# none (every enabled disk: two AHCI ports, PIIX, null_blk), parks them at
# once: the parks overlap in time, and the host checks the device trace
# (netlink-commands.check).
. ./lib.sh

modprobe hdprotect || { not_ok netlink-commands "modprobe hdprotect failed"; exit 1; }
nullb_make nbn 1 || { not_ok netlink-commands "cannot make null_blk disk nbn"; exit 1; }

out=$(genl-resolve hdprotect events 2>&1)
case $out in
"hdprotect "[0-9]*"
events "[0-9]*) ok genl-family-resolves ;;
*) not_ok genl-family-resolves "genl-resolve printed '$out'" ;;
esac
out=$(genl ctrl list 2>&1)
if echo "$out" | grep -q 'Name: hdprotect' &&
	echo "$out" | sed -n '/Name: hdprotect/,/Name:/p' | grep -q 'name: events'; then
	ok genl-ctrl-list-shows-family-and-group
else
	not_ok genl-ctrl-list-shows-family-and-group "genl ctrl list: $out"
fi

# The family lives in the initial network namespace only: from a new
# one, it does not resolve and `genl ctrl list` does not show it.
out=$(unshare -n hdp-nl get nbn 2>&1)
st=$?
case "$st $out" in
"1 "*"family hdprotect not found"*) ok family-not-in-other-netns ;;
*) not_ok family-not-in-other-netns "unshare -n hdp-nl get nbn: exit $st, '$out'" ;;
esac
out=$(unshare -n genl ctrl list 2>&1)
if echo "$out" | grep -q 'Name: nlctrl' && ! echo "$out" | grep -q 'Name: hdprotect'; then
	ok genl-ctrl-list-in-other-netns-lacks-family
else
	not_ok genl-ctrl-list-in-other-netns-lacks-family "unshare -n genl ctrl list: $out"
fi

# final OUTPUT DISK: the line with DISK's park outcome in the output of
# "hdp-nl park ... wait": its answer if it was in progress.
final() {
	echo "$1" | grep "^answer .*disk=$2 " ||
		echo "$1" | grep "^outcome .*disk=$2 "
}

H=/config/hdprotect/nbn
mkdir $H
g=$(hdp-nl get nbn)
expect_eq get-new-item "$(field "$g" disk) $(field "$g" state) $(field "$g" enabled) $(field "$g" timeout_ms) $(field "$g" method) $(echo "$g" | tail -n 1)" \
	"nbn idle 0 5000 auto ok"
expect_eq get-major-minor-are-the-disks "$(field "$g" major):$(field "$g" minor)" "$(cat /sys/block/nbn/dev)"
expect_eq get-methods "$(field "$g" methods)" "auto,unload,standby"

expect_eq set-ok "$(hdp-nl set nbn enabled=1 timeout=7000 method=standby)" ok
expect_eq set-shows-in-configfs "$(cat $H/enable) $(cat $H/timeout) $(cat $H/method)" "1 7 standby"
echo 9 >$H/timeout
echo unload >$H/method
g=$(hdp-nl get nbn)
expect_eq get-agrees-with-configfs "$(field "$g" enabled) $(field "$g" timeout_ms) $(field "$g" method) $(field "$g" state)" \
	"$(cat $H/enable) $(($(cat $H/timeout) * 1000)) $(cat $H/method) $(cat $H/state)"

# Starting a program takes about a second in the emulated guest: parks
# here last 20 s and end with an unpark.
# The device takes 1 s to answer: the reply comes first, in progress.
echo 1000 >/config/nullb/nbn/park_delay_ms
p=$(hdp-nl park nbn timeout=20000 wait)
o=$(echo "$p" | grep '^outcome ')
a=$(echo "$p" | grep '^answer ')
c=$(field "$(echo "$p" | head -n 1)" cookie)
expect_eq park-reply-before-answer "$(field "$o" disk) $(field "$o" result) $(field "$o" park_ms)" \
	"nbn -115 20000"
expect_eq park-reply-cookie "$(field "$o" cookie)" "$c"
expect_eq park-answer-event "$(field "$a" disk) $(field "$a" cookie) $(field "$a" result) $(field "$a" last_method) $(echo "$p" | tail -n 1)" \
	"nbn $c 0 unload ok"
echo 0 >/config/nullb/nbn/park_delay_ms
left=$(cat $H/park)
if [ "$(cat $H/state)" = parked ] && [ "$left" -gt 0 ] && [ "$left" -le 20000 ]; then
	ok park-one-shows-in-configfs
else
	not_ok park-one-shows-in-configfs "state $(cat $H/state), park $left"
fi
g=$(hdp-nl get nbn)
expect_eq get-while-parked "$(field "$g" state) $(field "$g" parks)" "parked $(stat_of $H parks)"
expect_eq unpark-one "$(hdp-nl unpark nbn all)" ok
expect_eq unpark-one-shows-in-configfs "$(cat $H/state) $(cat $H/park)" "idle 0"

# Park every enabled disk: the three emulated ATA disks and nbn, which
# takes 100 ms to park, as a disk does.
echo 100 >/config/nullb/nbn/park_delay_ms
disks=nbn
for n in ahci0 ahci1 piix0; do
	d=$(disk $n) || { not_ok "$n-present" "no /dev/hdp/$n"; continue; }
	mkdir /config/hdprotect/$d
	echo 1 >/config/hdprotect/$d/enable
	disks="$disks $d"
done
expect_eq dump-lists-every-item "$(hdp-nl dump | grep -o 'disk=[^ ]*' | sort | tr '\n' ' ')" \
	"$(for d in $disks; do echo "disk=$d"; done | sort | tr '\n' ' ')"

# Named disks are checked first: a request that names a disk twice, or a
# disk that is not enabled, parks nothing.
atas=$(echo "$disks" | cut -d' ' -f2-)
set -- $atas
expect_eq park-named-twice "$(hdp-nl park $1 $2 $1 | tail -n 1)" "EINVAL: disk named twice"
hdp-nl set $2 enabled=0 >/dev/null
expect_eq park-named-not-enabled "$(hdp-nl park $1 $2 | tail -n 1)" \
	"EPERM: protection of the disk is not enabled"
expect_eq park-named-refused-parks-nothing "$(cat /config/hdprotect/$1/state)" idle
hdp-nl set $2 enabled=1 >/dev/null

# One request naming the three ATA disks parks them at once, with one
# cookie, and tells each device's answer.
mark begin netlink-commands/named
s=$(hdp-nl park $atas timeout=20000 wait)
mark end netlink-commands/named
c=$(field "$(echo "$s" | head -n 1)" cookie)
expect_eq park-named-three-outcomes "$(echo "$s" | grep '^outcome ' | grep -cE " cookie=$c( |\$)")" 3
n=0
for d in $atas; do
	[ "$(field "$(final "$s" $d)" result)" = 0 ] && n=$((n + 1))
done
expect_eq park-named-three-answered "$n $(echo "$s" | tail -n 1)" "3 ok"
hdp-nl unpark all >/dev/null
msleep 500

mark begin netlink-commands/all
a=$(hdp-nl park timeout=20000 wait)
mark end netlink-commands/all
fin=$(for d in $disks; do final "$a" $d; done)
expect_eq park-all-parks-every-enabled-disk \
	"$(echo "$fin" | grep ' result=0 ' | grep -o 'disk=[^ ]*' | sort | tr '\n' ' ')" \
	"$(for d in $disks; do echo "disk=$d"; done | sort | tr '\n' ' ')"
for d in $disks; do
	st=$(cat /config/hdprotect/$d/state)
	[ "$st" = parked ] || not_ok "park-all-$d-parked" "state $st"
done
# At once: every park began before nbn, which takes 100 ms, answered.
# (An emulated ATA disk may answer within a millisecond, before the
# last park began, on a kernel without debugging aids.)
ov=$(echo "$fin" | awk '{
	for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	if (maxreq == "" || v["request_ns"] > maxreq) maxreq = v["request_ns"]
	if (v["disk"] == "nbn") slow = v["complete_ns"]
} END { print (slow != "" && maxreq < slow) ? "overlap" : "apart: last request " maxreq " after nbn answered at " slow }')
[ "$ov" = overlap ] || echo "$a"
expect_eq park-all-parks-overlap "$ov" overlap
expect_eq unpark-all "$(hdp-nl unpark all)" ok
for d in $disks; do
	st=$(cat /config/hdprotect/$d/state)
	[ "$st" = idle ] || not_ok "unpark-all-$d-idle" "state $st"
done
ok unpark-all-releases-every-disk

# A plain disable is a success path too; then nothing is enabled.
for d in $disks; do
	hdp-nl set $d enabled=0 >/dev/null
done
expect_eq park-all-with-none-enabled "$(hdp-nl park | tail -n 1 | cut -d: -f1)" ENODEV
for d in $disks; do
	rmdir /config/hdprotect/$d
done
expect_eq dump-empty "$(hdp-nl dump)" ok
nullb_remove nbn
