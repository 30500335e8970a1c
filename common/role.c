/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * role.c: how every role starts and serves its channel to the monitor.
 *
 * A role is started by sbx-monitor with its socketpair at descriptor 3 and
 * "-P name" on the command line.  Before it reads a single request it
 * applies its privilege file, then says READY with its pid and ids; the
 * monitor serves nothing until every role has.  The channel is a closed
 * protocol: a message type the role's table does not list, or a payload
 * of the wrong size, ends the role (and so, by design, the service).
 */
#include <sys/types.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <errno.h>
#include <event.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "common.h"
#include "proto.h"
#include "role.h"

#define ROLE_READS_MAX	8	/* reads per event before others get a turn */

static struct imsgbuf		*role_ibuf;
static const struct role_handler *role_table;
static size_t			 role_ntable;
static struct event		 role_ev;
static short			 role_events;
static const char		*role_name;
static struct event_base	*role_evbase;
static void			(*role_prepare)(void);
static int			 role_kept = -1;

/* A descriptor above ROLE_FD that role_init must not close (the
 * launcher's LAUNCH_POLICY_FD, for its mapper). */
void
role_keep_fd(int fd)
{
	role_kept = fd;
}

/*
 * What a role must do with the host's file system and sockets still in
 * reach, after the event base exists and before its privilege file is
 * applied (the proxy reads /etc/resolv.conf and its host's addresses).
 */
void
role_before_priv(void (*fn)(void))
{
	role_prepare = fn;
}

struct event_base *
role_base(void)
{
	return role_evbase;
}

static __dead void
role_usage(const char *name)
{
	fprintf(stderr, "usage: sbx-%s -P %s [-dNv]\n"
	    "(a role of sbx-monitor; it is started by the monitor, not by "
	    "hand)\n", name, name);
	exit(1);
}

void
role_init(int argc, char *argv[], const char *name,
    const struct priv_table *priv, struct imsgbuf *ibuf)
{
	struct role_ready	 rr;
	struct stat		 st;
	const char		*as = NULL;
	char			 err[512];
	pid_t			 parent;
	int			 ch, fl, debug = 0, verbose = 0, nodump = 0;

	while ((ch = getopt(argc, argv, "dNP:v")) != -1) {
		switch (ch) {
		case 'd':
			debug = 1;
			break;
		case 'N':
			nodump = 1;
			break;
		case 'P':
			as = optarg;
			break;
		case 'v':
			verbose++;
			break;
		default:
			role_usage(name);
		}
	}
	if (optind != argc || as == NULL || strcmp(as, name) != 0)
		role_usage(name);
	/*
	 * Roles always log to stderr: the monitor made it a pipe and relays
	 * each line to its own log.  An empty root has no /dev/log, and a
	 * role with "rlimit fsize 0" must never write to a file.
	 */
	(void)debug;
	log_init(1, LOG_DAEMON);
	log_procinit(name);
	log_setverbose(verbose);
	role_name = name;

	/*
	 * -N: the service was started as root and every role runs as its
	 * user.  The launcher's spawner may ptrace (the floor of "ptrace
	 * yes" payloads, spawner.priv), and the kernel lets a process trace
	 * any dumpable one of its own uid: not dumpable, the role cannot be
	 * traced or have its memory read by a compromised spawner (the
	 * monitor passes -N to every role; the launcher's mapper and spawner
	 * reset it, see launcher/split.c).
	 * Set by priv_apply once the privilege file's steps are done (an
	 * empty root writes its own uid_map, which a process that is not
	 * dumpable may not).  Started by a user, every role is that user's
	 * and so is everything else it runs: nothing is gained there, and
	 * the tests read the roles' /proc entries as that user.
	 */
	priv_set_nodump(nodump);
	if (fstat(ROLE_FD, &st) == -1 || !S_ISSOCK(st.st_mode))
		fatalx("descriptor %d is not the monitor's socket; roles are "
		    "started by sbx-monitor", ROLE_FD);
	/* Die with the monitor; re-check in case it died before prctl. */
	parent = getppid();
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
		fatal("prctl(PR_SET_PDEATHSIG)");
	if (getppid() != parent || parent == 1)
		fatalx("the monitor is gone");
	if (role_kept > ROLE_FD) {
		if (role_kept > ROLE_FD + 1)
			(void)syscall(SYS_close_range, ROLE_FD + 1,
			    role_kept - 1, 0);
		closefrom(role_kept + 1);
	} else
		closefrom(ROLE_FD + 1);
	/* Non-blocking whoever made the socketpair: role_dispatch reads on
	 * until the channel is empty, which must end in EAGAIN, never in a
	 * wait. */
	if ((fl = fcntl(ROLE_FD, F_GETFL)) == -1 ||
	    fcntl(ROLE_FD, F_SETFL, fl | O_NONBLOCK) == -1)
		fatal("fcntl descriptor %d", ROLE_FD);
	/* The event base (an epoll fd) exists before the filter forbids
	 * creating one; roles add their events after role_init(). */
	role_evbase = event_init();

	/*
	 * Everything READY needs is gathered and queued first: after the
	 * privilege file a role may not even ask for its own uid.
	 */
	if (imsgbuf_init(ibuf, ROLE_FD) == -1)
		fatal("imsgbuf_init");
	imsgbuf_allow_fdpass(ibuf);
	memset(&rr, 0, sizeof(rr));
	rr.version = ROLE_PROTOCOL_VERSION;
	rr.pid = (uint32_t)getpid();
	rr.uid = (uint32_t)getuid();
	rr.gid = (uint32_t)getgid();
	if (imsg_compose(ibuf, IMSG_ROLE_READY, 0, 0, -1, &rr,
	    sizeof(rr)) == -1)
		fatal("composing ready");

	if (role_prepare != NULL)
		role_prepare();
	if (priv_apply(priv, err, sizeof(err)) == -1)
		fatalx("%s: %s", priv->file, err);

	if (imsgbuf_flush(ibuf) == -1)
		fatal("sending ready");
	log_debug("ready: %s applied", priv->file);
}

static void	 role_dispatch(int, short, void *);

void
role_event_add(void)
{
	short	 events = EV_READ;

	/* Replies go now: the socket almost always takes them, and waiting
	 * for EV_WRITE costs an event-loop round.  An error stays queued
	 * and is met again by role_dispatch. */
	if (imsgbuf_queuelen(role_ibuf) > 0)
		(void)imsgbuf_write(role_ibuf);
	if (imsgbuf_queuelen(role_ibuf) > 0)
		events |= EV_WRITE;
	/* One-shot events: re-arm after every dispatch. */
	if (role_events != 0)
		event_del(&role_ev);
	role_events = events;
	event_set(&role_ev, role_ibuf->fd, events, role_dispatch, NULL);
	event_add(&role_ev, NULL);
}

static void
role_pong(struct imsg *imsg)
{
	struct role_ping	 p;

	if (imsg_get_data(imsg, &p, sizeof(p)) == -1)
		fatalx("message type %u length %zu is outside the %s "
		    "protocol", imsg_get_type(imsg), imsg_get_len(imsg),
		    role_name);
	if (imsg_compose(role_ibuf, IMSG_ROLE_PONG, 0, 0, -1, &p,
	    sizeof(p)) == -1)
		fatal("composing pong");
}

/* Handle every complete message; how many there were. */
static int
role_handle(void)
{
	struct imsg		 imsg;
	size_t			 i;
	int			 n, got = 0;

	for (;;) {
		if ((n = imsg_get(role_ibuf, &imsg)) == -1)
			fatal("channel: malformed message");
		if (n == 0)
			return got;
		/*
		 * Every role answers the monitor's liveness probe from its
		 * event loop: a role that is stopped or stuck does not, and
		 * the monitor fails closed (role-timeout) instead of leaving
		 * its clients waiting.
		 */
		if (imsg_get_type(&imsg) == IMSG_ROLE_PING) {
			role_pong(&imsg);
			imsg_free(&imsg);
			got++;
			continue;
		}
		for (i = 0; i < role_ntable; i++)
			if (role_table[i].type == imsg_get_type(&imsg))
				break;
		if (i == role_ntable || (role_table[i].len != ROLE_LEN_ANY &&
		    imsg_get_len(&imsg) != role_table[i].len))
			fatalx("message type %u length %zu is outside the %s "
			    "protocol", imsg_get_type(&imsg),
			    imsg_get_len(&imsg), role_name);
		role_table[i].fn(role_ibuf, &imsg);
		imsg_free(&imsg);
		got++;
	}
}

static void
role_dispatch(int fd, short event, void *arg)
{
	int	 n, reads;

	(void)fd;
	(void)arg;
	if ((event & EV_WRITE) && imsgbuf_write(role_ibuf) == -1)
		fatal("channel write");
	/*
	 * A message with a descriptor arrives in a recvmsg of its own, so a
	 * sandbox's SPEC, FDs and START take several reads: read again
	 * while the last read brought messages (bounded), instead of going
	 * back through the event loop for each.
	 */
	for (reads = 0; reads < ROLE_READS_MAX; reads++) {
		if (event & EV_READ) {
			if ((n = imsgbuf_read(role_ibuf)) == -1)
				fatal("channel read");
			if (n == 0) {
				/* The monitor is gone: so are we. */
				log_debug("monitor closed the channel");
				exit(0);
			}
		}
		if (role_handle() == 0 || !(event & EV_READ))
			break;
	}
	role_event_add();
}

/* Serve the channel with a closed table until the monitor goes away. */
__dead void
role_serve(struct imsgbuf *ibuf, const struct role_handler *table,
    size_t ntable)
{
	role_ibuf = ibuf;
	role_table = table;
	role_ntable = ntable;
	role_event_add();
	event_dispatch();
	fatalx("event loop ended");
}
