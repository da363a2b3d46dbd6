# libhdp's example listener (libhdp/examples/hdp-applet.c), run as a plain
# user through a 100-park run and changes of settings made through
# configfs and hdpctl, then stopped through a burst of events that
# overruns its socket: each time its live view of the disks ends equal to
# `hdpctl status --json`.
#
# The burst is 300 park/unpark pairs in `make check`, 1000 in `make soak`.
# The applet's socket is given 32 KiB (--buffer; libhdp's default is
# 1 MiB), well under 100 events, so 600 events overrun it six times over:
# enough for the bug it guards, events still queued at the overrun applied
# over the resynced list.
. ./lib.sh

PAIRS=$(by_mode 300 1000)

modprobe hdprotect || { not_ok hdp-applet "modprobe hdprotect failed"; exit 1; }
nullb_make nba 1 || { not_ok hdp-applet "cannot make null_blk disk nba"; exit 1; }
sdb=$(disk ahci1)
hdpctl add nba --enable && hdpctl add "$sdb" --enable ||
	{ not_ok hdp-applet "hdpctl add failed"; exit 1; }
H=/config/hdprotect/nba

# start_applet: run the applet as a plain user, wait until it listens.
start_applet() {
	su user -c "hdp-applet --print-view --timeout 600 --buffer 32768" >/tmp/app.out 2>/tmp/app.err &
	apid=$!
	_i=0
	while ! grep -q '^listening: ' /tmp/app.out && [ $_i -lt 100 ]; do
		msleep 200
		_i=$((_i + 1))
	done
}

# stop_applet NAME: wait until the view stops changing (1 s without a new
# line), quit the applet; its exit status must be 0.
stop_applet() {
	_last=-1
	_i=0
	while [ $_i -lt 60 ]; do
		_n=$(wc -l </tmp/app.out)
		[ "$_n" -eq "$_last" ] && break
		_last=$_n
		msleep 1000
		_i=$((_i + 1))
	done
	kill $(pidof hdp-applet)
	wait $apid
	expect_eq "$1" "$?" 0
}

# The keys of the applet's view, from hdpctl's status lines (one disk's
# object per line of its JSON array), sorted.
project() {
	awk '/"disk":/ {
		n = split("disk state enabled timeout_ms method parks failures last_result", k, " ")
		out = "{"
		for (i = 1; i <= n; i++) {
			v = ""
			if (match($0, "\"" k[i] "\":(\"[^\"]*\"|[^,}]*)"))
				v = substr($0, RSTART, RLENGTH)
			out = out (i > 1 ? "," : "") v
		}
		print out "}"
	}' | sort
}

# compare_view NAME: the view the applet printed when quitting equals
# `hdpctl status --json`.
compare_view() {
	hdpctl status --json | project >/tmp/status.view
	sed -n '/^{/p' /tmp/app.out | sort >/tmp/app.view
	if [ -s /tmp/app.view ] && cmp -s /tmp/app.view /tmp/status.view; then
		ok "$1"
	else
		not_ok "$1" "applet: $(cat /tmp/app.view) status: $(cat /tmp/status.view) stderr: $(cat /tmp/app.err)"
	fi
}

start_applet
expect_eq applet-lists-the-disks "$(grep '^listening' /tmp/app.out)" "listening: 2 disks"

# 100 parks: through configfs, and every tenth of every disk at once
# through hdpctl; then settings change.
i=0
while [ $i -lt 100 ]; do
	if [ $((i % 10)) -eq 9 ]; then
		hdpctl park --for 1 >/dev/null
		hdpctl unpark
	else
		echo 1 >$H/park
		echo 0 >$H/park
	fi
	i=$((i + 1))
done
echo 9 >$H/timeout
hdpctl set "$sdb" method standby
hdpctl disable "$sdb"
hdpctl park nba --for 30 >/dev/null

stop_applet applet-quits-0-on-sigterm
expect_eq applet-applied-events "$(grep -c '^view: ' /tmp/app.out | awk '{ print ($1 >= 200) }')" 1
compare_view applet-view-equals-hdpctl-status
expect_eq applet-view-shows-the-last-park "$(grep -c '"disk":"nba","state":"parked"' /tmp/app.view)" 1
hdpctl unpark

# Overrun: the applet is stopped while 2 x PAIRS events come, more than
# its socket holds. Once it runs again it must see the loss, list the disks
# again and end with the kernel's view, not with the stale events that
# were still queued. Nothing changes after it runs again, so the view it
# ends with is the one its resync made.
start_applet
pid=$(pidof hdp-applet)
if [ -z "$pid" ] || ! grep -q '^listening: ' /tmp/app.out; then
	not_ok applet-listens-again "no second applet: $(cat /tmp/app.err)"
	exit 1
fi
kill -STOP "$pid"
# The stop takes effect once the applet is scheduled: wait up to 5 s.
i=0
while [ "$(awk '{ print $3 }' "/proc/$pid/stat")" != T ] && [ $i -lt 50 ]; do
	msleep 100
	i=$((i + 1))
done
expect_eq applet-stopped "$(awk '{ print $3 }' "/proc/$pid/stat")" T
park_pairs $H "$PAIRS"
echo 7 >$H/timeout
hdpctl park nba --for 30 >/dev/null
kill -CONT "$pid"
stop_applet applet-quits-0-after-overrun
expect_eq applet-resyncs-after-overrun "$(grep -c '^resync: 2 disks' /tmp/app.out | awk '{ print ($1 >= 1) }')" 1
compare_view applet-view-equals-hdpctl-status-after-overrun
expect_eq applet-view-shows-the-park-after-overrun \
	"$(grep -c '"disk":"nba","state":"parked","enabled":true,"timeout_ms":7000' /tmp/app.view)" 1

hdpctl unpark
hdpctl remove nba
hdpctl remove "$sdb"
nullb_remove nba
exit $HDP_FAILED
