/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * fuzz_proxy_host: hostile authorities into the host canonicaliser, the
 * classifier and the policy.  An accepted host must be canonical (its
 * canonical form canonicalises to itself, names are lower case without
 * a trailing dot, addresses print as what they parsed to), and the
 * policy must refuse every IP literal no allow-cidr covers.
 *
 *	make build/fuzz/fuzz_proxy_host
 *	build/fuzz/fuzz_proxy_host regress/fuzz/corpus/fuzz_proxy_host
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "proxy/proxy.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static struct proxy_policy	 pol;
static int			 ready;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proxy_host	 h, h2;
	const char		*why;
	char			 buf[POLICY_WHY_MAX], v6[HOST_NAME_MAX_LEN + 3];
	uint16_t		 port;
	size_t			 i, n;

	if (!ready) {
		if (policy_add_domain(&pol, 0, "example.org", &why) == -1 ||
		    policy_add_domain(&pol, 0, "*.example.com:443", &why) ==
		    -1 || policy_add_domain(&pol, 1, "x.example.com", &why) ==
		    -1)
			abort();
		ready = 1;
	}
	if (host_authority((const char *)data, size, 80, &h, &port,
	    &why) == -1) {
		if (why == NULL || *why == '\0')
			abort();
		return 0;
	}
	if (port == 0)
		abort();
	n = strlen(h.name);
	if (h.kind == HOST_NAME) {
		for (i = 0; i < n; i++)
			if (h.name[i] >= 'A' && h.name[i] <= 'Z')
				abort();
		if (n == 0 || h.name[n - 1] == '.')
			abort();
		if (host_canon(h.name, n, &h2, &why) == -1 ||
		    strcmp(h2.name, h.name) != 0 || h2.kind != HOST_NAME)
			abort();
		(void)policy_name(&pol, h.name, port, buf, sizeof(buf));
	} else {
		/* No allow-cidr: a literal is never reachable. */
		if (policy_literal(&pol, &h.addr, buf, sizeof(buf)))
			abort();
		if (h.addr.af == AF_INET6) {
			v6[0] = '[';
			memcpy(v6 + 1, h.name, n);
			v6[n + 1] = ']';
			n += 2;
			if (host_canon(v6, n, &h2, &why) == -1)
				abort();
		} else if (host_canon(h.name, n, &h2, &why) == -1)
			abort();
		if (!addr_equal(&h.addr, &h2.addr))
			abort();
		(void)addr_class(&h.addr);
	}
	return 0;
}
