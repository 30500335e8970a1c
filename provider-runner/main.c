/*
 * sbx-provider-runner: bundles, digests, frames and gates. Its requests from the monitor
 * come with the provider work; until then it serves an empty table.
 * Like every role it applies its privilege file (provider-runner/provider-runner.priv) before
 * it reads anything, and any message outside its table ends it.
 */
#include <stddef.h>

#include "common.h"

int
main(int argc, char *argv[])
{
	struct imsgbuf	 ibuf;

	role_init(argc, argv, "provider-runner", &priv_table_provider_runner, &ibuf);
	role_serve(&ibuf, NULL, 0);
}
