/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * cgv2.h: cgv2.c -- cgroup v2 files (monitor/cgroups.c, launcher/cgroup.c).
 */
#ifndef SBX_CGV2_H
#define SBX_CGV2_H

#include <stddef.h>

#define CGV2_FAKE		0x1	/* tests: a plain directory laid out
					   like a cgroup2 mount */
#define CGV2_LEAF		"supervisor"	/* the service's own leaf */
int	 cgv2_write(int dfd, const char *file, const char *val, int flags);
int	 cgv2_is_cgroup2(int dfd, int flags);
int	 cgv2_missing(int dfd, const char *file, const char *const *want,
	    size_t nwant, char *missing, size_t mlen);
long long cgv2_event(int dfd, const char *file, const char *key);
long long cgv2_value(int dfd, const char *file);
int	 cgv2_mountpoint(const char *mountinfo, char *path, size_t len);
int	 cgv2_self(const char *cgfile, char *path, size_t len);
int	 cgv2_rmdir(int dfd, const char *name, int flags);

#endif /* SBX_CGV2_H */
