# Every configfs error of hdprotect: the errno, and that nothing changed.
. ./lib.sh

modprobe hdprotect || { not_ok configfs-errors "modprobe hdprotect failed"; exit 1; }
nullb_make nbe 1 || { not_ok configfs-errors "cannot make null_blk disk nbe"; exit 1; }
nullb_make nbn 0 || { not_ok configfs-errors "cannot make null_blk disk nbn"; exit 1; }
H=/config/hdprotect/nbe
expect_eq mkdir-protected-disk "$(try-op mkdir $H)" ok

digits=$(printf '%04096d' 0 | tr 0 9)
for attr in enable timeout park; do
	expect_write "$attr-empty" $H/$attr '\n' EINVAL
	expect_write "$attr-text" $H/$attr abc EINVAL
	expect_write "$attr-minus" $H/$attr -1 EINVAL
	expect_write "$attr-plus" $H/$attr +1 EINVAL
	expect_write "$attr-fraction" $H/$attr 1.5 EINVAL
	expect_write "$attr-hex" $H/$attr 0x5 EINVAL
	expect_write "$attr-two-numbers" $H/$attr '5 5' EINVAL
	expect_write "$attr-leading-space" $H/$attr ' 1' EINVAL
	expect_write "$attr-two-newlines" $H/$attr '1\n\n' EINVAL
	expect_write "$attr-huge" $H/$attr 99999999999999999999 ERANGE
	expect_write "$attr-4k-digits" $H/$attr "$digits" ERANGE
done
expect_write enable-2 $H/enable 2 ERANGE
expect_write timeout-0 $H/timeout 0 ERANGE
expect_write timeout-31 $H/timeout 31 ERANGE
expect_write timeout-30 $H/timeout 30 ok
expect_write timeout-7-newline $H/timeout '7\n' ok
expect_eq timeout-reads-7 "$(cat $H/timeout)" 7
expect_write park-while-disabled $H/park 5 EPERM
expect_eq park-while-disabled-stays-idle "$(cat $H/state)" idle
expect_write enable-1 $H/enable 1 ok
expect_write park-31 $H/park 31 ERANGE
expect_eq park-31-stays-idle "$(cat $H/state)" idle
expect_write method-trailing-space $H/method 'auto ' EINVAL
expect_write method-upper-case $H/method UNLOAD EINVAL
expect_write method-empty $H/method '\n' EINVAL
expect_write method-unknown $H/method spin EINVAL
expect_write method-standby $H/method standby ok
expect_eq method-reads-standby "$(cat $H/method)" standby
expect_write state-read-only $H/state idle EACCES
expect_write stats-read-only $H/stats x EACCES

expect_eq mkdir-missing-disk "$(try-op mkdir /config/hdprotect/nosuchdisk)" ENODEV
v=$(disk virtio0)
expect_eq mkdir-virtio-disk "$(try-op mkdir /config/hdprotect/$v)" EOPNOTSUPP
expect_eq mkdir-nullb-without-protect "$(try-op mkdir /config/hdprotect/nbn)" EOPNOTSUPP
printf 'o\nn\np\n1\n\n+8M\nw\n' | fdisk "/dev/$v" >/dev/null 2>&1
if [ -e "/sys/block/$v/${v}1" ]; then
	expect_eq mkdir-partition "$(try-op mkdir /config/hdprotect/${v}1)" EINVAL
else
	not_ok mkdir-partition "could not make a partition on /dev/$v"
fi
expect_eq failed-mkdirs-left-nothing "$(ls /config/hdprotect)" nbe
dd if=/dev/zero of="/dev/$v" bs=512 count=1 2>/dev/null
blockdev --rereadpt "/dev/$v"

rmdir $H
nullb_remove nbe
nullb_remove nbn
