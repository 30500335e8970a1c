/*
 * net.c: the sandbox's network.  "none" is the fresh network namespace the
 * launcher cloned -- no interfaces but lo, no routes off the host -- with
 * lo brought up so that programs talking to themselves over 127.0.0.1
 * work.  The host's 127.0.0.1 is a different interface in a different
 * namespace and cannot be reached from here.
 */
#include <sys/types.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <net/if.h>

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "shim.h"

void
shim_net(const struct sbx_spec *sp)
{
	struct ifreq	 ifr;
	int		 s;

	if (sp->net != SBX_NET_NONE)
		shim_fail(EINVAL, "network %u: not supported", sp->net);
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
