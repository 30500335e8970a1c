/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * common.h: what every program of sbx uses -- logging, allocation, imsg
 * framing, privilege files and canonical JSON.  Each module of common/ has
 * a header named for it; this one only gathers the five above.  A file
 * that uses anything else includes that header itself: proto.h (the
 * internal protocol), role.h, spec.h, sha256.h, civil.h, clock.h, cgv2.h,
 * fdcheck.h, proxy_msg.h, beneath.h.
 */
#ifndef SBX_COMMON_H
#define SBX_COMMON_H

#include "defs.h"
#include "log.h"
#include "xmalloc.h"
#include "imsg.h"
#include "priv.h"
#include "json.h"

#endif /* SBX_COMMON_H */
