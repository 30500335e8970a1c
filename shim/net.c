/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * net.c: the sandbox's network.  "none" is the fresh network namespace the
 * launcher cloned -- no interfaces but lo, no routes off the host -- with
 * lo brought up so that programs talking to themselves over 127.0.0.1
 * work.  The host's 127.0.0.1 is a different interface in a different
 * namespace and cannot be reached from here.
 *
 * "proxy" is the same namespace, plus the egress proxy's way in (design.md
 * §1): pid 1 makes listening sockets on 127.0.0.1:3128 and [::1]:3128
 * *inside* the namespace and hands them out to the launcher, which passes
 * them on to sbx-proxy.  The proxy then accepts this namespace's clients
 * from the host's side; there is no bridge process, no socket path in the
 * sandbox, and still no route: a payload that ignores HTTP_PROXY reaches
 * nothing but its own loopback.  The listeners exist before the payload
 * does, so its first connection waits in their backlog whatever the
 * proxy's timing.
 */
#include <sys/types.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <net/if.h>
#include <netinet/in.h>

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "fdpass.h"
#include "spec.h"
#include "shim.h"

#define LISTEN_BACKLOG	128

static void
lo_up(void)
{
	struct ifreq	 ifr;
	int		 s;

	if ((s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		shim_fail(errno, "lo: socket");
	memset(&ifr, 0, sizeof(ifr));
	strlcpy(ifr.ifr_name, "lo", sizeof(ifr.ifr_name));
	if (ioctl(s, SIOCGIFFLAGS, &ifr) == -1)
		shim_fail(errno, "lo: SIOCGIFFLAGS");
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) == -1)
		shim_fail(errno, "lo: up");
	close(s);
}

/*
 * A listener on the loopback address of af, or -1 when the kernel has no
 * IPv6 (then 127.0.0.1 alone is the way out, as on an IPv4-only host).
 */
static int
listener(int af)
{
	struct sockaddr_in	 sin;
	struct sockaddr_in6	 sin6;
	int			 s, one = 1;

	if ((s = socket(af, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    0)) == -1) {
		if (af == AF_INET6 && errno == EAFNOSUPPORT)
			return -1;
		shim_fail(errno, "proxy listener: socket");
	}
	if (setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == -1)
		shim_fail(errno, "proxy listener: SO_REUSEADDR");
	if (af == AF_INET) {
		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_port = htons(SBX_PROXY_PORT);
		sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if (bind(s, (struct sockaddr *)&sin, sizeof(sin)) == -1)
			shim_fail(errno, "proxy listener: bind 127.0.0.1:%d",
			    SBX_PROXY_PORT);
	} else {
		if (setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &one,
		    sizeof(one)) == -1)
			shim_fail(errno, "proxy listener: IPV6_V6ONLY");
		memset(&sin6, 0, sizeof(sin6));
		sin6.sin6_family = AF_INET6;
		sin6.sin6_port = htons(SBX_PROXY_PORT);
		sin6.sin6_addr = in6addr_loopback;
		if (bind(s, (struct sockaddr *)&sin6, sizeof(sin6)) == -1) {
			/* IPv6 disabled on lo (ipv6.disable, sysctl). */
			if (errno == EADDRNOTAVAIL) {
				close(s);
				return -1;
			}
			shim_fail(errno, "proxy listener: bind [::1]:%d",
			    SBX_PROXY_PORT);
		}
	}
	if (listen(s, LISTEN_BACKLOG) == -1)
		shim_fail(errno, "proxy listener: listen");
	return s;
}

/* Both listeners in one message; the launcher holds the other end. */
static void
hand_out(const int *fds, size_t n)
{
	char	 byte = 'L';

	if (fdpass_send(SBX_SHIM_FD_PROXY, &byte, 1, fds, n, 0) == -1)
		shim_fail(errno, "proxy listeners: hand out");
}

void
shim_net(const struct sbx_spec *sp)
{
	int	 fds[2];
	size_t	 n = 0;

	if (sp->net != SBX_NET_NONE && sp->net != SBX_NET_PROXY)
		shim_fail(EINVAL, "network %u: not supported", sp->net);
	lo_up();
	if (sp->net != SBX_NET_PROXY)
		return;
	fds[n++] = listener(AF_INET);
	if ((fds[n] = listener(AF_INET6)) != -1)
		n++;
	hand_out(fds, n);
	/* The proxy holds them now; nothing of the sandbox's does. */
	while (n > 0)
		close(fds[--n]);
	close(SBX_SHIM_FD_PROXY);
}
