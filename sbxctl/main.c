/*
 * sbxctl: placeholder until its issue lands; refuses to run so nobody
 * mistakes it for a working role.
 */
#include <stdio.h>

#include "common.h"

int
main(int argc, char *argv[])
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "sbxctl: not implemented yet\n");
	return 1;
}
