# A GET dump of many disks comes in several parts; an item removed
# between two parts must not silently make the dump skip a disk: the parts
# built after the change carry NLM_F_DUMP_INTR, and a dump made afterwards
# lists every disk exactly once.
. ./lib.sh

N=50
modprobe hdprotect || { not_ok netlink-dump "modprobe hdprotect failed"; exit 1; }
i=0
while [ $i -lt $N ]; do
	d=$(printf 'nd%02d' $i)
	nullb_make $d 1 && mkdir /config/hdprotect/$d ||
		{ not_ok netlink-dump "cannot make null_blk disk $d and its item"; exit 1; }
	i=$((i + 1))
done

# disks FILE: the disk names of a dump's output, sorted, one per line.
disks() { sed -n 's/^disk=\([^ ]*\) .*/\1/p' "$1" | sort; }
# want LIST...: the names nd00..nd(N-1) but those given, sorted.
want() {
	_i=0
	while [ $_i -lt $N ]; do
		_d=$(printf 'nd%02d' $_i)
		case " $* " in *" $_d "*) ;; *) echo $_d ;; esac
		_i=$((_i + 1))
	done
}

# paused_dump OUT [COMMAND...]: a dump read 4 KiB at a time into OUT;
# once its first part was read, run COMMAND, then let the dump go on.
# Prints the exit status of hdp-nl.
paused_dump() {
	_out=$1
	shift
	rm -f /tmp/dp.ready /tmp/dp.go
	hdp-nl dump pause=/tmp/dp >"$_out" 2>&1 &
	_pid=$!
	for _ in $(seq 100); do [ -e /tmp/dp.ready ] && break; msleep 100; done
	[ $# -eq 0 ] || "$@"
	touch /tmp/dp.go
	wait $_pid
	echo $?
}

# Undisturbed: all N disks, in several parts, none flagged.
st=$(paused_dump /tmp/dump0.out)
expect_eq dump-in-parts-lists-every-disk "$st $(disks /tmp/dump0.out | tr '\n' ' ')$(tail -n 1 /tmp/dump0.out)" \
	"0 $(want | tr '\n' ' ')ok"

# nd00, the first item, removed once the first part was read. The second
# part was built before the removal (the kernel builds the next part as a
# part is read); the third is built after it, starts from an index that
# moved by one, and must carry NLM_F_DUMP_INTR.
st=$(paused_dump /tmp/dump1.out rmdir /config/hdprotect/nd00)
expect_eq dump-interrupted-by-rmdir-is-flagged "$st $(tail -n 2 /tmp/dump1.out | tr '\n' ' ')" \
	"0 dump-interrupted ok "
hdp-nl dump >/tmp/dump2.out 2>&1
expect_eq dump-after-rmdir-lists-each-disk-once "$(disks /tmp/dump2.out | tr '\n' ' ')$(tail -n 1 /tmp/dump2.out)" \
	"$(want nd00 | tr '\n' ' ')ok"

# mkdir during a dump flags it too.
st=$(paused_dump /tmp/dump3.out mkdir /config/hdprotect/nd00)
expect_eq dump-interrupted-by-mkdir-is-flagged "$st $(tail -n 2 /tmp/dump3.out | tr '\n' ' ')" \
	"0 dump-interrupted ok "

i=0
while [ $i -lt $N ]; do
	d=$(printf 'nd%02d' $i)
	rmdir /config/hdprotect/$d
	nullb_remove $d
	i=$((i + 1))
done
exit $HDP_FAILED
