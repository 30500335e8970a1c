/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 */
/* t_common_smoke: the build and the kyua pipeline work at all. */
#include <atf-c.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

ATF_TC_WITHOUT_HEAD(xasprintf_formats);
ATF_TC_BODY(xasprintf_formats, tc)
{
	char	*s;

	ATF_CHECK_EQ(xasprintf(&s, "%s-%d", "sbx", 7), 5);
	ATF_CHECK_STREQ(s, "sbx-7");
	free(s);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, xasprintf_formats);
	return atf_no_error();
}
