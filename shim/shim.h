/*
 * shim.h: sbx-shim, pid 1 of every sandbox.  It builds the sandbox from
 * the spec in a fixed order (main.c), then runs the payload as its child
 * and reports how it ended.  Every setup step either succeeds or ends the
 * shim with a "step: errno" record to the launcher; nothing is skipped.
 */
#ifndef SBX_SHIM_H
#define SBX_SHIM_H

#include <stdint.h>

#include "common.h"

/* Where the new root is assembled before pivot_root: a directory every
 * host has, covered by the root tmpfs in the sandbox's mount namespace
 * only, after every host path the spec names has been opened. */
#define SHIM_STAGE		"/tmp"
#define SHIM_HOSTNAME		"sbx"
#define SHIM_EXIT_SETUP		125	/* exit code after a setup record */

/* status.c */
__dead void shim_fail(int, const char *, ...) SBX_PRINTF(2, 3);
void	 shim_report_exit(int, uint32_t);

/* mount.c */
void	 shim_mounts(const struct sbx_spec *);

/* net.c */
void	 shim_net(const struct sbx_spec *);

/* caps.c */
void	 shim_drop_caps(void);

/* landlock.c */
void	 shim_landlock(const struct sbx_spec *);

/* limits.c */
uint32_t shim_limits(const struct sbx_spec *);

/* payload.c */
__dead void shim_run(const struct sbx_spec *, uint32_t);

/* filter.c */
int	 shim_payload_filter(int);
void	 shim_reaper_filter(void);

/* selftest.c */
int	 shim_selftest(int, char *[]);

#endif /* SBX_SHIM_H */
