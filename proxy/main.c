/*
 * sbx-proxy: the HTTP egress proxy. It has no requests to serve yet: its
 * protocol (listeners per sandbox, policy) comes with the proxy work.
 * Like every role it applies its privilege file (proxy/proxy.priv) before
 * it reads anything, and any message outside its table ends it.
 */
#include <stddef.h>

#include "common.h"

int
main(int argc, char *argv[])
{
	struct imsgbuf	 ibuf;

	role_init(argc, argv, "proxy", &priv_table_proxy, &ibuf);
	role_serve(&ibuf, NULL, 0);
}
