/*
 * sbx-launcher: creates sandboxes. Its spawn protocol with the monitor comes
 * with the sandbox work; until then it serves an empty table.
 * Like every role it applies its privilege file (launcher/launcher.priv) before
 * it reads anything, and any message outside its table ends it.
 */
#include <stddef.h>

#include "common.h"

int
main(int argc, char *argv[])
{
	struct imsgbuf	 ibuf;

	role_init(argc, argv, "launcher", &priv_table_launcher, &ibuf);
	role_serve(&ibuf, NULL, 0);
}
