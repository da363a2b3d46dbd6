// SPDX-License-Identifier: GPL-2.0-only
/*
 * hdp_genl_probe: a test module that registers a generic netlink family
 * of its own, "hdp_probe", when loaded, and unregisters it when removed.
 * Registering a family takes genetlink's cb_lock for writing, which every
 * generic netlink request holds for reading while its doit runs: a guest
 * test loads this module while a park waits for a slow device, to show
 * that no hdprotect request holds that lock across a device's answer.
 */
#include <linux/module.h>
#include <net/genetlink.h>

static const struct genl_small_ops hdp_probe_ops[] = {};

static struct genl_family hdp_probe_family __ro_after_init = {
	.name		= "hdp_probe",
	.version	= 1,
	.module		= THIS_MODULE,
	.small_ops	= hdp_probe_ops,
	.n_small_ops	= ARRAY_SIZE(hdp_probe_ops),
};

static int __init hdp_probe_init(void)
{
	return genl_register_family(&hdp_probe_family);
}

static void __exit hdp_probe_exit(void)
{
	genl_unregister_family(&hdp_probe_family);
}

module_init(hdp_probe_init);
module_exit(hdp_probe_exit);
MODULE_DESCRIPTION("Test module: a generic netlink family of its own");
MODULE_LICENSE("GPL");
