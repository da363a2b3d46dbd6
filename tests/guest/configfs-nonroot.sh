# A user other than root reads every hdprotect attribute and writes none.
. ./lib.sh

modprobe hdprotect || { not_ok configfs-nonroot "modprobe hdprotect failed"; exit 1; }
nullb_make nbu 1 || { not_ok configfs-nonroot "cannot make null_blk disk nbu"; exit 1; }
H=/config/hdprotect/nbu
mkdir $H
for a in enable timeout park method state stats; do
	if out=$(su user -c "cat $H/$a" 2>&1) && [ -n "$out" ]; then
		ok "nonroot-reads-$a"
	else
		not_ok "nonroot-reads-$a" "'cat $H/$a' as user: $out"
	fi
done
for a in enable timeout park method; do
	got=$(su user -c "/hdp/bin/try-op write $H/$a 1" 2>&1)
	expect_eq "nonroot-cannot-write-$a" "$got" EACCES
done
expect_eq nonroot-cannot-mkdir "$(su user -c '/hdp/bin/try-op mkdir /config/hdprotect/nbu2')" EACCES
expect_eq nonroot-changed-nothing "$(cat $H/enable) $(cat $H/state)" "0 idle"
rmdir $H
nullb_remove nbu
