/*
 * sbx-monitor: the service agents talk to (DESIGN 1).  For now: options and
 * the configuration check; the service itself is not started yet.
 */
#include <stdio.h>
#include <stdlib.h>
#include <syslog.h>
#include <unistd.h>

#include "common.h"
#include "monitor.h"

static __dead void
usage(void)
{
	fprintf(stderr, "usage: sbx-monitor [-dnvP] [-f file] "
	    "[-s socket]\n");
	exit(1);
}

int
main(int argc, char *argv[])
{
	struct sbx_conf	*conf;
	const char	*conffile = SBX_CONF_FILE, *sockpath = NULL, *why;
	int		 ch, debug = 0, noaction = 0, verbose = 0;
	int		 printpriv = 0;

	log_init(1, LOG_DAEMON);	/* stderr until the service starts */
	log_procinit("sbx-monitor");
	while ((ch = getopt(argc, argv, "df:nPs:v")) != -1) {
		switch (ch) {
		case 'd':
			debug = 1;
			break;
		case 'f':
			conffile = optarg;
			break;
		case 'n':
			noaction = 1;
			break;
		case 'P':
			printpriv = 1;
			break;
		case 's':
			sockpath = optarg;
			break;
		case 'v':
			verbose++;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	log_setverbose(verbose);

	if (printpriv)
		fatalx("-P: privilege tables are not implemented yet");

	if ((conf = conf_parse(conffile)) == NULL)
		exit(1);
	if (sockpath != NULL && conf_set_socket(conf, sockpath, &why) == -1)
		fatalx("-s \"%s\": %s", sockpath, why);
	if (noaction) {
		if (verbose)
			conf_dump(stdout, conf);
		fprintf(stderr, "configuration OK\n");
		conf_free(conf);
		exit(0);
	}
	(void)debug;
	conf_free(conf);
	fprintf(stderr, "sbx-monitor: service not implemented yet\n");
	return 1;
}
