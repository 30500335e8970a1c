/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * sbx-monitor: the service agents talk to (design.md §1).  It parses sbx.conf,
 * opens the control socket, drops root, starts its roles, applies its own
 * privilege file and then serves agents until a signal or a lost role.
 */
#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <event.h>
#include <grp.h>
#include <libgen.h>
#include <limits.h>
#include <malloc.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "monitor.h"

struct sbx_conf		*monitor_conf;
time_t			 monitor_started;
char			 monitor_user[64];

static const char	*conffile = SBX_CONF_FILE;
static const char	*sockarg;
static struct event	 ev_sigchld, ev_sighup, ev_sigterm, ev_sigint;

static __dead void
usage(int help)
{
	fprintf(help ? stdout : stderr, "usage: sbx-monitor [-dhnvP] "
	    "[-D macro=value] [-f file] [-s socket]\n");
	exit(help ? 0 : 1);
}

/*
 * Each control connection's imsg read buffer is IMSG_READ_CHUNK bytes and
 * more.  From the brk heap calloc has to zero it, so every page of it is
 * resident while the connection idles, and once freed it stays in the
 * heap behind later allocations: a burst of clients left the monitor
 * several times its idle size for good (200 clients: 13.8 MiB, then
 * 15.4 MiB after they left).  Served by mmap instead, the buffer arrives
 * zeroed from the kernel, only the pages a read touches are resident,
 * and free returns it.  Only where memory comes from changes: freezero
 * still clears it before it goes.
 */
static void
memory_tune(void)
{
#ifndef SBX_SANITIZE
	if (mallopt(M_MMAP_THRESHOLD, IMSG_READ_CHUNK) != 1)
		log_warnx("mallopt M_MMAP_THRESHOLD %d failed; idle "
		    "connections will cost more memory", IMSG_READ_CHUNK);
#endif
	/* A sanitizer build's allocator is ASan's, not glibc's: its
	 * mallopt does nothing and says so, and there is nothing to tune. */
}

/* Orderly or not, the same cleanup: no role, no socket file left. */
__dead void
monitor_shutdown(int code)
{
	control_close();
	proc_shutdown();
	audit("stop", getuid(), getpid(), "monitor exits with status %d",
	    code);
	exit(code);
}

static void
monitor_reload(void)
{
	struct sbx_conf	*nconf;
	const char	*why;

	log_info("SIGHUP: re-reading %s", conffile);
	if ((nconf = conf_parse(conffile)) == NULL) {
		log_warnx("reload failed: %s has errors (above); keeping the "
		    "old configuration", conffile);
		return;
	}
	if (sockarg != NULL && conf_set_socket(nconf, sockarg, &why) == -1) {
		log_warnx("reload failed: -s \"%s\": %s", sockarg, why);
		conf_free(nconf);
		return;
	}
	if (conf_resolve(nconf, 0, caps_granted()) == -1) {
		log_warnx("reload failed: %s does not resolve (above); "
		    "keeping the old configuration", conffile);
		conf_free(nconf);
		return;
	}
	/* The socket and the user were used at start-up; changing them
	 * needs a restart, and saying so beats silently ignoring it. */
	if (strcmp(nconf->socket, monitor_conf->socket) != 0)
		log_warnx("reload: socket changed to %s; still serving %s "
		    "until restart", nconf->socket, monitor_conf->socket);
	/* Node is probed once, before the monitor's filter forbids exec:
	 * a new runtime (or turning providers on) needs a restart too. */
	if (strcmp(nconf->provider_runtime, monitor_conf->provider_runtime) !=
	    0 || (nconf->bundle_providers && !monitor_conf->bundle_providers))
		log_warnx("reload: provider-runtime or bundle-providers "
		    "changed; the provider launch plan of %s stands until "
		    "restart", monitor_conf->provider_runtime);
	/* The launcher's cgroup subtree was laid out before the roles. */
	if ((nconf->cgroup_root == NULL) != (monitor_conf->cgroup_root ==
	    NULL) || (nconf->cgroup_root != NULL &&
	    strcmp(nconf->cgroup_root, monitor_conf->cgroup_root) != 0))
		log_warnx("reload: cgroup-root changed; the sandboxes' cgroups "
		    "stay where they are (%s) until restart",
		    cgroups_mechanism());
	if (nconf->cgroup_favordynmods != monitor_conf->cgroup_favordynmods)
		log_warnx("reload: cgroup-favordynmods changed; it stays %s "
		    "until restart", cgroups_favordynmods() ? "held" :
		    "not held");
	control_conf(nconf);
	/* Built from the old profiles: none may serve a run any more. */
	msb_warm_release_all("the configuration was reloaded");
	conf_free(monitor_conf);
	monitor_conf = nconf;
	/* The trust root may have changed: the runner re-validates it. */
	provider_allowlist_send();
	provider_pool_send();
	proc_policy_send(monitor_conf);
	proc_watchdog_arm();
	audit("reload", getuid(), getpid(), "configuration %s reloaded",
	    conffile);
}

static void
monitor_signal(int sig, short event, void *arg)
{
	(void)event;
	(void)arg;
	switch (sig) {
	case SIGCHLD:
		if (proc_reap() == -1)
			monitor_shutdown(1);
		break;
	case SIGHUP:
		monitor_reload();
		break;
	case SIGTERM:
	case SIGINT:
		log_info("%s: shutting down", strsignal(sig));
		monitor_shutdown(0);
	}
}

/*
 * Make the socket's directory when it is missing: owned by the run-as
 * user, so that the monitor can still remove its socket after dropping
 * root.  An existing directory is left as the operator made it.
 */
static void
make_socket_dir(uid_t uid, gid_t gid)
{
	char		 dir[PATH_MAX];
	struct stat	 st;

	strlcpy(dir, monitor_conf->socket, sizeof(dir));
	dirname(dir);
	if (stat(dir, &st) == 0)
		return;
	if (errno != ENOENT || mkdir(dir, 0755) == -1)
		fatal("socket directory %s", dir);
	if (geteuid() == 0 && chown(dir, uid, gid) == -1)
		fatal("chown %s", dir);
}

/* As root: switch to the configured user for good. */
static void
drop_privileges(void)
{
	uid_t		 uid = monitor_conf->user.id;
	gid_t		 gid = monitor_conf->user_gid;

	if (setgroups(1, &gid) == -1)
		fatal("setgroups %u", (unsigned)gid);
	if (setresgid(gid, gid, gid) == -1)
		fatal("setresgid %u", (unsigned)gid);
	/* The launcher's two capabilities survive the switch (caps.c). */
	caps_keep();
	if (setresuid(uid, uid, uid) == -1)
		fatal("setresuid %u", (unsigned)uid);
	caps_trim();
	if (setuid(0) != -1 || seteuid(0) != -1)
		fatalx("could regain root after dropping to uid %u",
		    (unsigned)uid);
}

static void
set_user_name(uid_t uid)
{
	struct passwd	*pw;

	if ((pw = getpwuid(uid)) != NULL)
		strlcpy(monitor_user, pw->pw_name, sizeof(monitor_user));
	else
		snprintf(monitor_user, sizeof(monitor_user), "%u",
		    (unsigned)uid);
}

SBX_SANITIZER_ROLE_OPTIONS

int
main(int argc, char *argv[])
{
	static char	 abspath[PATH_MAX];
	const char	*why;
	char		 err[512];
	int		 ch, debug = 0, noaction = 0, verbose = 0;
	int		 printpriv = 0;

	log_init(1, LOG_DAEMON);	/* stderr until the service starts */
	log_procinit("sbx-monitor");
	memory_tune();
	while ((ch = getopt(argc, argv, "D:df:hnPs:v")) != -1) {
		switch (ch) {
		case 'D':
			if (conf_define(optarg, &why) == -1)
				fatalx("-D \"%s\": %s", optarg, why);
			break;
		case 'd':
			debug = 1;
			break;
		case 'f':
			conffile = optarg;
			break;
		case 'h':
			usage(1);
			break;
		case 'n':
			noaction = 1;
			break;
		case 'P':
			printpriv = 1;
			break;
		case 's':
			sockarg = optarg;
			break;
		case 'v':
			verbose++;
			break;
		default:
			usage(0);
		}
	}
	if (optind != argc)
		usage(0);
	log_setverbose(verbose);

	if (printpriv)
		exit(monitor_privs_print(stdout) == 0 ? 0 : 1);

	if ((monitor_conf = conf_parse(conffile)) == NULL)
		exit(1);
	if (sockarg != NULL &&
	    conf_set_socket(monitor_conf, sockarg, &why) == -1)
		fatalx("-s \"%s\": %s", sockarg, why);
	if (noaction) {
		if (verbose)
			conf_dump(stdout, monitor_conf);
		fprintf(stderr, "configuration OK\n");
		conf_free(monitor_conf);
		exit(0);
	}
	if (conf_resolve(monitor_conf, geteuid() == 0, caps_granted()) == -1)
		exit(1);
	/* daemon(3) moves to /; SIGHUP must still find the file. */
	if (realpath(conffile, abspath) == NULL)
		fatal("%s", conffile);
	conffile = abspath;

	log_init(debug, LOG_DAEMON);
	log_procinit("sbx-monitor");
	/* A client that hangs up must not kill the service. */
	signal(SIGPIPE, SIG_IGN);
	monitor_started = time(NULL);

	if (audit_open(monitor_conf->log_file) == -1)
		exit(1);
	/*
	 * The socket is made before root is given up (design.md §1): a
	 * socket-group the run-as user is not in needs root.  bind(2) makes
	 * it owned by the run-as user (when that user owns the directory,
	 * so it can remove it at exit), in that group, with its mode, and
	 * nothing is changed by path after (control_open).
	 */
	proc_open_all();
	if (geteuid() == 0) {
		make_socket_dir(monitor_conf->user.id, monitor_conf->user_gid);
		if (control_open(monitor_conf, monitor_conf->user.id) == -1)
			exit(1);
		cgroups_prepare(monitor_conf->cgroup_root,
		    monitor_conf->cgroup_favordynmods, monitor_conf->user.id,
		    monitor_conf->user_gid);
		changes_init(monitor_conf, 1, monitor_conf->user.id,
		    monitor_conf->user_gid);
		drop_privileges();
		changes_open(monitor_conf, 1);
	} else {
		make_socket_dir(getuid(), getgid());
		if (control_open(monitor_conf, (uid_t)-1) == -1)
			exit(1);
		/* A user's own delegated cgroup (systemd --user). */
		cgroups_prepare(monitor_conf->cgroup_root,
		    monitor_conf->cgroup_favordynmods, getuid(), getgid());
		changes_init(monitor_conf, caps_granted(), getuid(),
		    getgid());
	}
	set_user_name(getuid());
	changes_expire(monitor_conf, -1);
	runspec_init();
	selftest_init();
	/* The provider launch plan probes node: before any filter. */
	if (monitor_conf->bundle_providers)
		runtime_init(monitor_conf->provider_runtime);
	if (!debug && daemon(0, 0) == -1)
		fatal("daemon");

	event_init();
	signal_set(&ev_sigchld, SIGCHLD, monitor_signal, NULL);
	signal_set(&ev_sighup, SIGHUP, monitor_signal, NULL);
	signal_set(&ev_sigterm, SIGTERM, monitor_signal, NULL);
	signal_set(&ev_sigint, SIGINT, monitor_signal, NULL);
	signal_add(&ev_sigchld, NULL);
	signal_add(&ev_sighup, NULL);
	signal_add(&ev_sigterm, NULL);
	signal_add(&ev_sigint, NULL);
	proc_start_all(debug, verbose);
	proc_policy_send(monitor_conf);
	caps_drop();

	/* Before the table: its filter reaches the thread by TSYNC, and
	 * rlimit nproc 0 would refuse the clone (closer.c). */
	closer_init();

	/* Everything this process will ever open is open: from here on
	 * its own privilege file rules it. */
	if (priv_apply(&priv_table_monitor, err, sizeof(err)) == -1) {
		log_warnx("monitor.priv: %s", err);
		monitor_shutdown(1);
	}

	/* A role may have died before the handler existed. */
	if (proc_reap() == -1)
		monitor_shutdown(1);
	/* The verdict exists before the first agent is served. */
	selftest_startup();
	provider_allowlist_startup();
	provider_pool_send();
	control_listen();
	audit("start", getuid(), getpid(), "sbx-monitor %s as %s on %s",
	    SBX_VERSION, monitor_user, monitor_conf->socket);

	event_dispatch();
	log_warnx("event loop ended");
	monitor_shutdown(1);
}
