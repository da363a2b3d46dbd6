// SPDX-License-Identifier: GPL-2.0-only
/*
 * hdp_freefall: a /dev/freefall with no hardware behind it, for tests.
 *
 * lis3lv02d and dell-smo8800 hand the free falls their chips detect to
 * user space through a misc device, /dev/freefall, that one process at a
 * time may open: read(2) returns one byte, the number of falls since the
 * last read (at most 255), and blocks until there is one (-EAGAIN with
 * O_NONBLOCK); poll(2) gives EPOLLIN while that number is not zero; a
 * fasync owner gets SIGIO at each fall. As in lis3lv02d, falls count only
 * while the device is open, and opening it starts the count from zero.
 * QEMU emulates no such chip: this module makes the same device on a
 * platform device of its own, and a test raises N free falls by writing
 * N to /sys/kernel/debug/hdp_freefall/fall.
 *
 * The device goes away while it is open as a driver's does when its
 * hardware goes: unbinding the platform device (writing hdp_freefall to
 * /sys/bus/platform/drivers/hdp_freefall/unbind) deregisters it, and from
 * then on a read fails with -ENODEV and poll gives EPOLLHUP | EPOLLERR.
 * The state lives until its last file is closed (@ref). An open file
 * holds the module (fops.owner), which cannot be removed before the file
 * is closed: its code is the file's.
 *
 * Locking: the wait queue's own lock protects @count, @opened and @gone.
 * The misc core calls ->open under its mutex, which misc_deregister()
 * takes too: an open takes its reference before the device goes, or does
 * not find it.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/version.h>
#include <linux/wait.h>

#define HDP_FF_NAME	"hdp_freefall"

/**
 * struct hdp_ff - the free-fall detector
 * @misc: /dev/freefall
 * @ref: held by the platform device's binding and by the open file
 * @wait: readers and pollers; its lock protects what follows
 * @count: falls since the last read, while open
 * @opened: a file is open
 * @gone: the device was removed
 * @fasync: SIGIO at each fall
 * @dir: the debugfs directory of the fall file
 */
struct hdp_ff {
	struct miscdevice misc;
	struct kref ref;
	wait_queue_head_t wait;
	unsigned int count;
	bool opened;
	bool gone;
	struct fasync_struct *fasync;
	struct dentry *dir;
};

static struct hdp_ff *hdp_ff_of(struct file *file)
{
	/* misc_open() left the miscdevice there. */
	return container_of(file->private_data, struct hdp_ff, misc);
}

static void hdp_ff_free(struct kref *ref)
{
	kfree(container_of(ref, struct hdp_ff, ref));
}

static int hdp_ff_open(struct inode *inode, struct file *file)
{
	struct hdp_ff *ff = hdp_ff_of(file);
	int ret = 0;

	spin_lock(&ff->wait.lock);
	if (ff->opened) {
		ret = -EBUSY;
	} else {
		ff->opened = true;
		ff->count = 0;
	}
	spin_unlock(&ff->wait.lock);
	if (ret)
		return ret;
	kref_get(&ff->ref);
	return nonseekable_open(inode, file);
}

/* The fasync entry is gone by now: __fput() removes it first. */
static int hdp_ff_release(struct inode *inode, struct file *file)
{
	struct hdp_ff *ff = hdp_ff_of(file);

	spin_lock(&ff->wait.lock);
	ff->opened = false;
	spin_unlock(&ff->wait.lock);
	kref_put(&ff->ref, hdp_ff_free);
	return 0;
}

static ssize_t hdp_ff_read(struct file *file, char __user *buf, size_t len,
			   loff_t *ppos)
{
	struct hdp_ff *ff = hdp_ff_of(file);
	unsigned int n = 0;
	int ret = 0;

	if (!len)
		return -EINVAL;
	spin_lock(&ff->wait.lock);
	if (!ff->count && !ff->gone) {
		if (file->f_flags & O_NONBLOCK)
			ret = -EAGAIN;
		else
			ret = wait_event_interruptible_locked(ff->wait,
							      ff->count || ff->gone);
	}
	if (!ret) {
		n = ff->count;
		ff->count = 0;
	}
	spin_unlock(&ff->wait.lock);
	if (ret)
		return ret;
	if (!n)
		return -ENODEV;
	if (put_user((u8)min(n, 255U), buf))
		return -EFAULT;
	return 1;
}

static __poll_t hdp_ff_poll(struct file *file, poll_table *wait)
{
	struct hdp_ff *ff = hdp_ff_of(file);
	__poll_t mask = 0;

	poll_wait(file, &ff->wait, wait);
	spin_lock(&ff->wait.lock);
	if (ff->count)
		mask |= EPOLLIN | EPOLLRDNORM;
	if (ff->gone)
		mask |= EPOLLHUP | EPOLLERR;
	spin_unlock(&ff->wait.lock);
	return mask;
}

static int hdp_ff_fasync(int fd, struct file *file, int on)
{
	return fasync_helper(fd, file, on, &hdp_ff_of(file)->fasync);
}

static const struct file_operations hdp_ff_fops = {
	.owner		= THIS_MODULE,
	.open		= hdp_ff_open,
	.release	= hdp_ff_release,
	.read		= hdp_ff_read,
	.poll		= hdp_ff_poll,
	.fasync		= hdp_ff_fasync,
};

/* dell-smo8800's /dev/freefall has no poll: readers must block in read. */
static bool nopoll;
module_param(nopoll, bool, 0444);
MODULE_PARM_DESC(nopoll, "no poll, as dell-smo8800's /dev/freefall");

static const struct file_operations hdp_ff_fops_nopoll = {
	.owner		= THIS_MODULE,
	.open		= hdp_ff_open,
	.release	= hdp_ff_release,
	.read		= hdp_ff_read,
	.fasync		= hdp_ff_fasync,
};

/*
 * debugfs "fall": N free falls, as N interrupts of the chip. Ignored
 * while the device is not open, as lis3lv02d ignores its interrupts.
 * debugfs_remove() waits for a write in progress.
 */
static ssize_t hdp_ff_fall_write(struct file *file, const char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	struct hdp_ff *ff = file->private_data;
	bool counted;
	unsigned int n;
	int ret;

	ret = kstrtouint_from_user(ubuf, len, 10, &n);
	if (ret)
		return ret;
	if (!n)
		return -EINVAL;
	spin_lock(&ff->wait.lock);
	counted = ff->opened;
	if (counted) {
		ff->count = n > UINT_MAX - ff->count ? UINT_MAX : ff->count + n;
		wake_up_locked_poll(&ff->wait, EPOLLIN | EPOLLRDNORM);
	}
	spin_unlock(&ff->wait.lock);
	if (counted)
		kill_fasync(&ff->fasync, SIGIO, POLL_IN);
	return len;
}

static const struct file_operations hdp_ff_fall_fops = {
	.owner		= THIS_MODULE,
	.open		= simple_open,
	.write		= hdp_ff_fall_write,
};

static int hdp_ff_probe(struct platform_device *pdev)
{
	struct hdp_ff *ff;
	int ret;

	ff = kzalloc(sizeof(*ff), GFP_KERNEL);
	if (!ff)
		return -ENOMEM;
	kref_init(&ff->ref);
	init_waitqueue_head(&ff->wait);
	ff->misc.minor = MISC_DYNAMIC_MINOR;
	ff->misc.name = "freefall";
	ff->misc.fops = nopoll ? &hdp_ff_fops_nopoll : &hdp_ff_fops;
	ff->misc.parent = &pdev->dev;
	ret = misc_register(&ff->misc);
	if (ret) {
		kfree(ff);
		return ret;
	}
	ff->dir = debugfs_create_dir(HDP_FF_NAME, NULL);
	debugfs_create_file("fall", 0200, ff->dir, ff, &hdp_ff_fall_fops);
	platform_set_drvdata(pdev, ff);
	return 0;
}

static void hdp_ff_gone(struct platform_device *pdev)
{
	struct hdp_ff *ff = platform_get_drvdata(pdev);

	debugfs_remove(ff->dir);
	misc_deregister(&ff->misc);
	spin_lock(&ff->wait.lock);
	ff->gone = true;
	wake_up_locked_poll(&ff->wait, EPOLLHUP | EPOLLERR);
	spin_unlock(&ff->wait.lock);
	kill_fasync(&ff->fasync, SIGIO, POLL_HUP);
	kref_put(&ff->ref, hdp_ff_free);
}

/* A platform driver's remove returns nothing from 6.11 on. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
static void hdp_ff_remove(struct platform_device *pdev)
{
	hdp_ff_gone(pdev);
}
#else
static int hdp_ff_remove(struct platform_device *pdev)
{
	hdp_ff_gone(pdev);
	return 0;
}
#endif

static struct platform_driver hdp_ff_driver = {
	.probe	= hdp_ff_probe,
	.remove	= hdp_ff_remove,
	.driver	= {
		.name	= HDP_FF_NAME,
	},
};

static struct platform_device *hdp_ff_pdev;

static int __init hdp_ff_init(void)
{
	int ret;

	ret = platform_driver_register(&hdp_ff_driver);
	if (ret)
		return ret;
	hdp_ff_pdev = platform_device_register_simple(HDP_FF_NAME, PLATFORM_DEVID_NONE,
						      NULL, 0);
	if (IS_ERR(hdp_ff_pdev)) {
		platform_driver_unregister(&hdp_ff_driver);
		return PTR_ERR(hdp_ff_pdev);
	}
	return 0;
}

static void __exit hdp_ff_exit(void)
{
	platform_device_unregister(hdp_ff_pdev);
	platform_driver_unregister(&hdp_ff_driver);
}

module_init(hdp_ff_init);
module_exit(hdp_ff_exit);
MODULE_DESCRIPTION("Test module: /dev/freefall with falls raised through debugfs");
MODULE_LICENSE("GPL");
