# libhdp's example listener (libhdp/examples/hdp-applet.c), run as a plain
# user through a 100-park run and changes of settings made through
# configfs and hdpctl: its live view of the disks ends equal to
# `hdpctl status --json`.
. ./lib.sh

modprobe hdprotect || { not_ok hdp-applet "modprobe hdprotect failed"; exit 1; }
nullb_make nba 1 || { not_ok hdp-applet "cannot make null_blk disk nba"; exit 1; }
sdb=$(disk ahci1)
hdpctl add nba --enable && hdpctl add "$sdb" --enable ||
	{ not_ok hdp-applet "hdpctl add failed"; exit 1; }
H=/config/hdprotect/nba

su user -c "hdp-applet --print-view --timeout 600" >/tmp/app.out 2>/tmp/app.err &
apid=$!
i=0
while ! grep -q '^listening: 2 disks' /tmp/app.out && [ $i -lt 100 ]; do
	msleep 200
	i=$((i + 1))
done
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

# Wait until the view stops changing (1 s without a new line), then quit.
last=-1
i=0
while [ $i -lt 60 ]; do
	n=$(wc -l </tmp/app.out)
	[ "$n" -eq "$last" ] && break
	last=$n
	msleep 1000
	i=$((i + 1))
done
kill $(pidof hdp-applet)
wait $apid
expect_eq applet-quits-0-on-sigterm "$?" 0
expect_eq applet-applied-events "$(grep -c '^view: ' /tmp/app.out | awk '{ print ($1 >= 200) }')" 1

# The keys of the applet's view, from hdpctl's status lines, sorted.
project() {
	awk '{
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
hdpctl status --json | project >/tmp/status.view
sed -n '/^{/p' /tmp/app.out | sort >/tmp/app.view
if [ -s /tmp/app.view ] && cmp -s /tmp/app.view /tmp/status.view; then
	ok applet-view-equals-hdpctl-status
else
	not_ok applet-view-equals-hdpctl-status "applet: $(cat /tmp/app.view) status: $(cat /tmp/status.view) stderr: $(cat /tmp/app.err)"
fi
expect_eq applet-view-shows-the-last-park "$(grep -c '"disk":"nba","state":"parked"' /tmp/app.view)" 1

hdpctl unpark
hdpctl remove nba
hdpctl remove "$sdb"
nullb_remove nba
exit $HDP_FAILED
