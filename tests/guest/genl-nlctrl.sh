# Generic netlink works in the guest, and a program linked with
# libnl-genl-3 runs there with the libraries the initramfs carries.
. ./lib.sh

out=$(genl-resolve nlctrl notify 2>&1)
case $out in
"nlctrl 16
notify "[0-9]*) ok genl-resolves-nlctrl ;;
*) not_ok genl-resolves-nlctrl "genl-resolve nlctrl notify printed '$out'" ;;
esac

out=$(genl-resolve no-such-family 2>&1)
st=$?
if [ $st -eq 1 ] && [ -n "$out" ]; then
	ok genl-unknown-family-fails
else
	not_ok genl-unknown-family-fails "exit $st, output '$out'; want 1 and a message"
fi
