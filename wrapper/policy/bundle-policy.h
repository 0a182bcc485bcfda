/*
 * bundle-policy.h - a profile bundle's policy, as the bundle check needs
 * it: the hot and cold lists it names must be files of the bundle.
 *
 * A bundle (wrapper/common/bundle-verify.h) is checked file by file
 * against its manifest; its policy, DIR/pgopt.policy, may then still name
 * any file as a list (hot = /etc/shadow), which the build would read (the
 * policy loader, the plugin in cc1).  This is the one place that parses a
 * bundle's policy for that, with the policy module's own parser; pgoptcc
 * (wrapper/bundle.c) and pgbuild (bundle_open_files, deb --bundle) call it
 * after bundle_verify.
 */
#ifndef PGOPT_POLICY_BUNDLE_POLICY_H
#define PGOPT_POLICY_BUNDLE_POLICY_H

#include "wrapper/common/bundle-verify.h"
#include "wrapper/common/strbuf.h"

/*
 * The checked bundle bv's policy (BUNDLE_POLICY_NAME, read with
 * bundle_verified_read: hashed as read) parses, its flags unjudged (the
 * vocabulary is checked where the policy is used), and names as hot and
 * cold lists only files of the bundle.  A bundle without a policy passes.
 * 0, or -1 with one sentence in err.
 */
int policy_bundle_check(const struct bundle_verified *bv, struct strbuf *err);

#endif
