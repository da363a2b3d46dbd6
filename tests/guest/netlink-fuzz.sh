# Random messages against the family (random commands, flags,
# attributes, types and lengths, fixed seed; one in eight a well-formed
# request with valid values, so that the state keeps changing): the debug
# kernel stays silent (the host checks the console); each disk's settings
# are what the accepted SET requests made them, so no refused message
# changed one; and the state agrees with configfs.
#
# `make check` sends 5,000 messages, `make soak` 100,000. The bugs this
# guards, an attribute without a policy entry or read at the wrong length
# (KASAN, UBSAN), a refused request that still changed a setting, a park
# left behind, need one message of a kind: 5,000 messages put each
# command with each attribute type and each shape of value (well-formed,
# a disk name, a string, an over-long string, empty, random bytes, nested,
# truncated), some 700 kinds, into the kernel: each kind at least once,
# most about ten times.
. ./lib.sh

SEED=${HDP_FUZZ_SEED:-20261203}
COUNT=${HDP_FUZZ_COUNT:-$(by_mode 5000 100000)}
modprobe hdprotect || { not_ok netlink-fuzz "modprobe hdprotect failed"; exit 1; }
for n in nbf nbg; do
	nullb_make $n 1 || { not_ok netlink-fuzz "cannot make null_blk disk $n"; exit 1; }
	mkdir /config/hdprotect/$n
done
echo 1 >/config/hdprotect/nbf/enable

out=$(hdp-nl fuzz seed=$SEED count=$COUNT disk=nbf disk=nbg disk=nbh 2>&1)
st=$?
echo "$out"
case "$st $(echo "$out" | tail -n 1)" in
"0 fuzz done sent=$COUNT "*) ok "fuzz-$COUNT-messages-seed-$SEED" ;;
*) not_ok "fuzz-$COUNT-messages-seed-$SEED" "exit $st: $(echo "$out" | tail -n 3)" ;;
esac

hdp-nl unpark all >/dev/null
for n in nbf nbg; do
	H=/config/hdprotect/$n
	g=$(hdp-nl get $n)
	# The fuzzer's model: the last accepted SET of each setting.
	model=$(echo "$out" | sed -n "s/^fuzz model disk=$n //p")
	got=
	for kv in $model; do
		got="$got ${kv%%=*}=$(field "$g" "${kv%%=*}")"
	done
	case "$model" in
	*enabled=*timeout_ms=*method=*)
		expect_eq "fuzz-$n-settings-are-the-accepted-sets" "${got# }" "$model" ;;
	*) skip "fuzz-$n-settings-are-the-accepted-sets" "the run set not every setting: '$model'" ;;
	esac
	expect_eq "fuzz-$n-netlink-agrees-with-configfs" \
		"$(field "$g" enabled) $(($(field "$g" timeout_ms) / 1000)) $(field "$g" method) $(field "$g" state) $(field "$g" parks) $(field "$g" failures)" \
		"$(cat $H/enable) $(cat $H/timeout) $(cat $H/method) $(cat $H/state) $(stat_of $H parks) $(stat_of $H failures)"
	expect_eq "fuzz-$n-idle-after-unpark" "$(cat $H/state)" idle
	expect_eq "fuzz-$n-no-dispatch-while-parked" "$(cat /config/nullb/$n/parked_dispatch)" 0
	rmdir $H
	nullb_remove $n
done
