/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * control.c: the agent socket (sbx-protocol(7)).
 *
 * Everything an agent sends is untrusted: each frame is length-checked by
 * imsg, each payload must be a small JSON object matching the schema of its
 * type, and each type is permitted only in its state.  A peer that breaks
 * the protocol gets one error naming the problem and is disconnected; the
 * monitor and every other client carry on.
 */
#include <sys/types.h>
#include <sys/fsuid.h>
#include <sys/queue.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <event.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "common.h"
#include "fdcheck.h"
#include "proto.h"
#include "spec.h"
#include "libsbx/sbx.h"
#include "monitor.h"

#define CTL_HELLO_TIMEOUT	10	/* seconds to say hello */
#define CTL_ACCEPT_BACKOFF	1	/* seconds when out of descriptors */
#define CTL_MAXGROUPS		64
#define CTL_MAXREFUSED		64	/* refusals lingering to be read */
#define CTL_READS_MAX		8	/* reads per event before others get a turn */
#define CTL_MSGS_MAX		64	/* requests per turn, likewise */
/*
 * Descriptors kept free for the roles: what they may pass the monitor
 * (a listener per proxy sandbox, a provider run's two pipes) and what
 * the monitor opens itself (gate packs, the allowlist), so that client
 * descriptors are refused first and a role's is never truncated
 * (MSG_CTRUNC on a role channel ends the service).
 */
#define CTL_FD_RESERVE_BASE	64
#define CTL_FD_RESERVE_PER_SB	3

static int		 listenfd = -1;
static struct event	 ev_accept;
static struct event	 ev_backoff;
static char		 sockpath[sizeof(((struct sockaddr_un *)0)->sun_path)];
static struct sbx_conf	*ctlconf;
static rlim_t		 fdlimit;	/* RLIMIT_NOFILE, raised to its max */

static void	 ctl_accept(int, short, void *);
static void	 ctl_dispatch(int, short, void *);
static void	 ctl_timeout(int, short, void *);
static void	 ctl_close(struct ctl_conn *);
static void	 ctl_rdrop(int, void *);

/* ---- the socket ------------------------------------------------------ */

/*
 * The soft RLIMIT_NOFILE is raised to the hard one (a service manager's
 * soft default of 1024 would leave little beside the roles' reserve),
 * before the monitor's filter.  Client descriptors then stop at the
 * limit less the roles' reserve (ctl_fd_room).
 */
static void
ctl_fdlimit_raise(void)
{
	struct rlimit	 rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		fatal("getrlimit RLIMIT_NOFILE");
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
			log_warn("setrlimit RLIMIT_NOFILE %llu",
			    (unsigned long long)rl.rlim_max);
		(void)getrlimit(RLIMIT_NOFILE, &rl);
	}
	fdlimit = rl.rlim_cur;
}

/* Descriptor numbers from this one on are the roles' reserve. */
static rlim_t
ctl_fd_ceiling(void)
{
	rlim_t	 reserve;

	reserve = CTL_FD_RESERVE_BASE + (rlim_t)CTL_FD_RESERVE_PER_SB *
	    ctlconf->max_sandboxes;
	if (fdlimit == RLIM_INFINITY || fdlimit > INT32_MAX)
		return (rlim_t)INT32_MAX - reserve;
	return fdlimit > reserve ? fdlimit - reserve : 0;
}

/*
 * The kernel gives the lowest free number, so a descriptor numbered n
 * means 0..n-1 are all open: n at or above the ceiling says the table is
 * into the roles' reserve, whatever holds the others.  Descriptors that
 * clients pass stop lower still, below room for every connection (and
 * lingering refusal) there may be: one client's descriptors must not
 * lock the others out.
 */
static int
ctl_fd_room(int fd, int passed)
{
	rlim_t	 ceiling = ctl_fd_ceiling(), room;

	if (passed) {
		room = (rlim_t)ctlconf->max_connections + CTL_MAXREFUSED;
		ceiling = ceiling > room ? ceiling - room : 0;
	}
	return (rlim_t)fd < ceiling;
}

/* Any exit of the monitor, fatal() included, takes the socket with it. */
static pid_t	 sockowner;

static void
control_atexit(void)
{
	if (getpid() == sockowner && sockpath[0] != '\0')
		(void)unlink(sockpath);
}

/*
 * Check the socket's directory, pinned by dfd: as root, only root and the
 * service's user (owner) may be able to add, remove or rename names in
 * it.  Anyone else could swap the socket's name for another file, or
 * stand in for the monitor, between or after the steps below.
 */
static int
sockdir_check(const char *dir, int dfd, uid_t owner)
{
	struct stat	 st;

	if (fstat(dfd, &st) == -1) {
		log_warn("socket directory %s", dir);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		log_warnx("socket directory %s: not a directory", dir);
		return -1;
	}
	if (geteuid() != 0)
		return 0;
	if (st.st_uid != 0 && st.st_uid != owner) {
		log_warnx("socket directory %s: owned by uid %u, neither root "
		    "nor the service's user; refusing to create the socket "
		    "where another user can swap names", dir,
		    (unsigned)st.st_uid);
		return -1;
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
		log_warnx("socket directory %s: mode %04o is writable by its "
		    "group or by others; refusing to create the socket where "
		    "another user can swap names", dir,
		    (unsigned)(st.st_mode & 07777));
		return -1;
	}
	return 0;
}

/*
 * bind(2) through the pinned directory with this process's file system
 * ids set to uid and gid and the umask to mode's complement: the kernel
 * creates the socket's inode with its final owner, group and mode in one
 * step, so that nothing is ever changed by path afterwards (a chown or
 * chmod by path would follow a symlink swapped in after the bind).
 * Single-threaded: the file system ids and the umask are the process's.
 */
static int
sock_bind(int fd, int dfd, const char *name, uid_t uid, gid_t gid,
    mode_t mode)
{
	struct sockaddr_un	 sun;
	mode_t			 old;
	int			 r, saved;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if ((size_t)snprintf(sun.sun_path, sizeof(sun.sun_path),
	    "/proc/self/fd/%d/%s", dfd, name) >= sizeof(sun.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (gid != (gid_t)-1) {
		(void)setfsgid(gid);
		if ((gid_t)setfsgid(gid) != gid)
			fatalx("setfsgid %u", (unsigned)gid);
	}
	if (uid != (uid_t)-1) {
		(void)setfsuid(uid);
		if ((uid_t)setfsuid(uid) != uid)
			fatalx("setfsuid %u", (unsigned)uid);
	}
	old = umask(~mode & 0777);
	r = bind(fd, (struct sockaddr *)&sun, sizeof(sun));
	saved = errno;
	umask(old);
	/* Back to the effective ids (and with root's, its capabilities). */
	if (uid != (uid_t)-1) {
		(void)setfsuid(geteuid());
		if ((uid_t)setfsuid(geteuid()) != geteuid())
			fatalx("setfsuid %u", (unsigned)geteuid());
	}
	if (gid != (gid_t)-1) {
		(void)setfsgid(getegid());
		if ((gid_t)setfsgid(getegid()) != getegid())
			fatalx("setfsgid %u", (unsigned)getegid());
	}
	errno = saved;
	return r;
}

/*
 * Open the control socket.  A socket file left by a dead monitor is
 * removed, but only after making sure no monitor answers on it: two
 * monitors on one socket would split the agents between them.
 *
 * As root, the socket is made by the kernel as owner and the socket's
 * group with its mode (sock_bind) in a directory only root and owner can
 * write (sockdir_check), and only checked afterwards: nothing is changed
 * by a path a user could redirect.  In a directory of owner's it is
 * created with owner's file system uid; one of root's is refused unless
 * owner is root (owner could not remove the socket there at exit).
 */
int
control_open(const struct sbx_conf *c, uid_t owner)
{
	struct sockaddr_un	 sun;
	struct stat		 st, dst;
	char			 dir[PATH_MAX], *name;
	uid_t			 fsuid = (uid_t)-1;
	gid_t			 gid = (gid_t)-1;
	int			 fd, probe, dfd;

	ctl_fdlimit_raise();
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlcpy(sun.sun_path, c->socket, sizeof(sun.sun_path)) >=
	    sizeof(sun.sun_path)) {
		log_warnx("socket %s: path too long", c->socket);
		return -1;
	}
	if (strlcpy(dir, c->socket, sizeof(dir)) >= sizeof(dir) ||
	    (name = strrchr(dir, '/')) == NULL || name[1] == '\0') {
		log_warnx("socket %s: not an absolute path to a file",
		    c->socket);
		return -1;
	}
	*name++ = '\0';
	if ((dfd = open(dir[0] != '\0' ? dir : "/",
	    O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1) {
		log_warn("socket directory %s", dir);
		return -1;
	}
	if (sockdir_check(dir[0] != '\0' ? dir : "/", dfd, owner) == -1 ||
	    fstat(dfd, &dst) == -1)
		goto fail_dir;
	/*
	 * Root now, the service's user later: in a directory of root's
	 * that user could not remove the socket at exit, and it would stay
	 * behind.  Refused now rather than failing then.
	 */
	if (geteuid() == 0 && owner != (uid_t)-1 && owner != 0 &&
	    dst.st_uid != owner) {
		log_warnx("socket directory %s: owned by uid %u, but the "
		    "monitor runs as uid %u after start and could not remove "
		    "its socket there on exit; the directory must be the "
		    "service user's (a missing one is made so, as systemd's "
		    "RuntimeDirectory= is)", dir[0] != '\0' ? dir : "/",
		    (unsigned)dst.st_uid, (unsigned)owner);
		goto fail_dir;
	}
	if ((probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		fatal("socket");
	if (connect(probe, (struct sockaddr *)&sun, sizeof(sun)) == 0) {
		close(probe);
		log_warnx("socket %s: another monitor is answering on it",
		    c->socket);
		goto fail_dir;
	}
	close(probe);
	/* Only ever replace a socket: a typo in sbx.conf must not delete
	 * whatever file happens to sit at that path. */
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			log_warnx("socket %s: exists and is not a socket; "
			    "not replacing it", c->socket);
			goto fail_dir;
		}
		if (unlinkat(dfd, name, 0) == -1) {
			log_warn("socket %s: cannot remove stale socket",
			    c->socket);
			goto fail_dir;
		}
	} else if (errno != ENOENT) {
		log_warn("socket %s", c->socket);
		goto fail_dir;
	}

	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0)) == -1)
		fatal("socket");
	if (geteuid() == 0) {
		if (owner != (uid_t)-1 && dst.st_uid == owner)
			fsuid = owner;
		gid = c->socket_group.set ? (gid_t)c->socket_group.id :
		    owner != (uid_t)-1 ? (gid_t)c->user_gid : (gid_t)-1;
	}
	if (sock_bind(fd, dfd, name, fsuid, gid, c->socket_mode) == -1) {
		if (errno == ENOENT && access("/proc/self/fd", X_OK) == -1)
			log_warnx("socket %s: bind through /proc/self/fd: "
			    "/proc is not mounted", c->socket);
		else
			log_warn("socket %s: bind", c->socket);
		close(fd);
		goto fail_dir;
	}
	/* Not root: only the caller's own rights are at stake, and its own
	 * group is all it can give; not following a symlink all the same. */
	if (geteuid() != 0 && c->socket_group.set &&
	    fchownat(dfd, name, (uid_t)-1, (gid_t)c->socket_group.id,
	    AT_SYMLINK_NOFOLLOW) == -1) {
		log_warn("socket %s: chgrp %u", c->socket,
		    (unsigned)c->socket_group.id);
		goto fail;
	}
	/* What was made is what was meant (a set-gid directory imposes its
	 * group): checked, never corrected by path. */
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1) {
		log_warn("socket %s", c->socket);
		goto fail;
	}
	if (!S_ISSOCK(st.st_mode) || (st.st_mode & 07777) != c->socket_mode ||
	    (fsuid != (uid_t)-1 && st.st_uid != fsuid) ||
	    (gid != (gid_t)-1 && st.st_gid != gid)) {
		log_warnx("socket %s: created as uid %u gid %u mode %04o, "
		    "not as configured (a set-gid directory?)", c->socket,
		    (unsigned)st.st_uid, (unsigned)st.st_gid,
		    (unsigned)(st.st_mode & 07777));
		goto fail;
	}
	if (listen(fd, 128) == -1) {
		log_warn("socket %s: listen", c->socket);
		goto fail;
	}
	close(dfd);
	strlcpy(sockpath, c->socket, sizeof(sockpath));
	sockowner = getpid();
	atexit(control_atexit);
	listenfd = fd;
	ctlconf = (struct sbx_conf *)c;
	reply_conf(c);
	reply_init(ctl_dispatch);
	return 0;
 fail:
	(void)unlinkat(dfd, name, 0);
	close(fd);
 fail_dir:
	close(dfd);
	return -1;
}

void
control_listen(void)
{
	event_set(&ev_accept, listenfd, EV_READ | EV_PERSIST, ctl_accept,
	    NULL);
	event_add(&ev_accept, NULL);
	evtimer_set(&ev_backoff, ctl_accept, NULL);
}

/* Close every connection and remove the socket file. */
void
control_close(void)
{
	struct ctl_conn	*c;

	while ((c = conn_first()) != NULL)
		ctl_close(c);
	if (listenfd != -1) {
		if (event_initialized(&ev_accept))
			event_del(&ev_accept);
		close(listenfd);
		listenfd = -1;
	}
	if (sockpath[0] != '\0' && unlink(sockpath) == -1 && errno != ENOENT)
		log_warn("unlink %s", sockpath);
	sockpath[0] = '\0';
}

void
control_conf(struct sbx_conf *c)
{
	ctlconf = c;
	reply_conf(c);
}

/* ---- peers ------------------------------------------------------------ */

/*
 * Who may connect: the monitor's own uid, root (it can read the monitor's
 * memory anyway), and whatever "allow uid"/"allow gid" names.  Groups are
 * the peer's at connect time (SO_PEERGROUPS), not a lookup by name that a
 * later group change could race.
 */
static int
ctl_allowed(int fd, uid_t uid, gid_t gid)
{
	const struct conf_allow	*a;
	gid_t			 groups[CTL_MAXGROUPS];
	socklen_t		 glen = sizeof(groups);
	size_t			 ngroups = 0, i;

	if (uid == 0 || uid == getuid())
		return 1;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &glen) == 0)
		ngroups = glen / sizeof(gid_t);
	TAILQ_FOREACH(a, &ctlconf->allows, entry) {
		if (a->type == CONF_ALLOW_UID && a->who.id == uid)
			return 1;
		if (a->type != CONF_ALLOW_GID)
			continue;
		if (a->who.id == gid)
			return 1;
		for (i = 0; i < ngroups; i++)
			if (groups[i] == a->who.id)
				return 1;
	}
	return 0;
}

/*
 * Refuse a peer that was never admitted.  The error is queued on a
 * connection that only drains what the peer sends until it has read why
 * (closing with unread input would make the kernel reset the connection
 * and discard the error).  Such connections count against no limit, but
 * only CTL_MAXREFUSED may linger; beyond that a refusal is a plain close.
 */
static void
ctl_refuse(int fd, struct ucred *cred, const char *code, const char *msg)
{
	struct ctl_conn	*c;

	if (conn_refused() >= CTL_MAXREFUSED) {
		close(fd);
		return;
	}
	c = xcalloc(1, sizeof(*c));
	if (imsgbuf_init(&c->ibuf, fd) == -1)
		fatal("imsgbuf_init");
	imsgbuf_set_rdrop(&c->ibuf, ctl_rdrop, c);
	c->uid = cred->uid;
	c->gid = cred->gid;
	c->pid = cred->pid;
	c->refused = 1;
	conn_link(c);
	evtimer_set(&c->tmo, ctl_timeout, c);
	reply_error(c, 0, 1, code, "%s", msg);
	conn_event_add(c);
}

static void
ctl_accept(int lfd, short event, void *arg)
{
	struct ctl_conn	*c;
	struct ucred	 cred;
	socklen_t	 len = sizeof(cred);
	struct timeval	 tv = { CTL_HELLO_TIMEOUT, 0 };
	char		 msg[160];
	int		 fd;

	(void)lfd;
	(void)arg;
	if (event & EV_TIMEOUT) {
		/* Back from a descriptor shortage: listen again. */
		event_add(&ev_accept, NULL);
		return;
	}
	if ((fd = accept4(listenfd, NULL, NULL,
	    SOCK_NONBLOCK | SOCK_CLOEXEC)) == -1) {
		if (errno == EMFILE || errno == ENFILE) {
			/* Stop accepting for a moment instead of spinning. */
			struct timeval	 bo = { CTL_ACCEPT_BACKOFF, 0 };

			log_warn("accept");
			event_del(&ev_accept);
			evtimer_add(&ev_backoff, &bo);
		} else if (errno != EAGAIN && errno != EINTR &&
		    errno != ECONNABORTED)
			log_warn("accept");
		return;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == -1) {
		log_warn("SO_PEERCRED");
		close(fd);
		return;
	}
	/* Into the roles' reserve: no room for a client, not even to
	 * linger with a refusal. */
	if (!ctl_fd_room(fd, 0)) {
		audit("refuse", cred.uid, cred.pid, "descriptor %d is in the "
		    "roles' reserve (RLIMIT_NOFILE %llu)", fd,
		    (unsigned long long)fdlimit);
		close(fd);
		return;
	}
	if (!ctl_allowed(fd, cred.uid, cred.gid)) {
		snprintf(msg, sizeof(msg), "uid %u gid %u is not allowed by "
		    "sbx.conf (allow uid/allow gid)", (unsigned)cred.uid,
		    (unsigned)cred.gid);
		audit("refuse", cred.uid, cred.pid, "%s", msg);
		ctl_refuse(fd, &cred, SBX_E_REFUSED, msg);
		return;
	}
	if (ctlconf->max_connections > 0 &&
	    conn_count() >= ctlconf->max_connections) {
		snprintf(msg, sizeof(msg), "max-connections %u reached",
		    ctlconf->max_connections);
		audit("refuse", cred.uid, cred.pid, "%s", msg);
		ctl_refuse(fd, &cred, SBX_E_LIMIT, msg);
		return;
	}
	if (ctlconf->max_connections_per_peer > 0 &&
	    conn_count_uid(cred.uid) >= ctlconf->max_connections_per_peer) {
		snprintf(msg, sizeof(msg), "max-connections-per-peer %u "
		    "reached for uid %u", ctlconf->max_connections_per_peer,
		    (unsigned)cred.uid);
		audit("refuse", cred.uid, cred.pid, "%s", msg);
		ctl_refuse(fd, &cred, SBX_E_LIMIT, msg);
		return;
	}

	c = xcalloc(1, sizeof(*c));
	if (imsgbuf_init(&c->ibuf, fd) == -1)
		fatal("imsgbuf_init");
	imsgbuf_set_rdrop(&c->ibuf, ctl_rdrop, c);
	/* Descriptors are accepted so that a stray one can be refused by
	 * name (unexpected-fd) instead of failing the whole read. */
	imsgbuf_allow_fdpass(&c->ibuf);
	if (imsgbuf_set_maxsize(&c->ibuf, SBX_MSG_MAXSIZE) == -1)
		fatal("imsgbuf_set_maxsize");
	c->uid = cred.uid;
	c->gid = cred.gid;
	c->pid = cred.pid;
	c->state = CTL_NEW;
	conn_link(c);
	audit("connect", c->uid, c->pid, "connection %u of %u", conn_count(),
	    ctlconf->max_connections);
	/* A peer that connects and says nothing does not keep a slot. */
	evtimer_set(&c->tmo, ctl_timeout, c);
	evtimer_add(&c->tmo, &tv);
	conn_event_add(c);
}

static void
ctl_close(struct ctl_conn *c)
{
	if (!c->refused) {
		msb_conn_gone(c);
		selftest_conn_gone(c);
		egress_conn_gone(c);
		rjob_conn_gone(c);
	}
	if (event_initialized(&c->ev))
		event_del(&c->ev);
	if (event_initialized(&c->tmo))
		evtimer_del(&c->tmo);
	imsgbuf_clear(&c->ibuf);
	close(c->ibuf.fd);
	conn_unlink(c);
	log_debug("connection of uid %u pid %d closed", (unsigned)c->uid,
	    (int)c->pid);
	free(c);
	/* A slot is free again; resume accepting if we had stopped. */
	if (listenfd != -1 && evtimer_pending(&ev_backoff, NULL)) {
		evtimer_del(&ev_backoff);
		event_add(&ev_accept, NULL);
	}
}

static void
ctl_timeout(int fd, short event, void *arg)
{
	struct ctl_conn	*c = arg;

	(void)fd;
	(void)event;
	if (c->state == CTL_NEW)
		audit("disconnect", c->uid, c->pid, "no hello within %d "
		    "seconds", CTL_HELLO_TIMEOUT);
	ctl_close(c);
}

/* Read and drop what a closing peer still sends; 0 once it hung up. */
static int
ctl_drain(struct ctl_conn *c)
{
	char	 buf[4096];
	ssize_t	 n;

	/* A plain read(2) also makes the kernel discard passed fds. */
	while ((n = read(c->ibuf.fd, buf, sizeof(buf))) > 0)
		;
	if (n == 0 || (n == -1 && errno != EAGAIN && errno != EINTR))
		return 0;
	return 1;
}

/* ---- schema ------------------------------------------------------------ */

struct ctl_field {
	const char	*name;
	int		 type;		/* cJSON_Number, cJSON_String, ... */
	int		 required;
};

static const char *
ctl_typename(int type)
{
	switch (type) {
	case cJSON_Number:
		return "a number";
	case cJSON_String:
		return "a string";
	case cJSON_True | cJSON_False:
		return "a boolean";
	case cJSON_Array:
		return "an array";
	case cJSON_Object:
		return "an object";
	}
	return "?";
}

/* Exactly the listed fields, each of its type, none twice. */
static int
ctl_schema(const cJSON *o, const struct ctl_field *fields, size_t nfields,
    char *why, size_t whylen)
{
	const cJSON	*it, *prev;
	size_t		 i;

	cJSON_ArrayForEach(it, o) {
		for (prev = o->child; prev != it; prev = prev->next)
			if (strcmp(prev->string, it->string) == 0) {
				snprintf(why, whylen, "field \"%s\" appears "
				    "twice", it->string);
				return -1;
			}
		for (i = 0; i < nfields; i++)
			if (strcmp(fields[i].name, it->string) == 0)
				break;
		if (i == nfields) {
			snprintf(why, whylen, "unknown field \"%.64s\"",
			    it->string);
			return -1;
		}
		if ((it->type & 0xff & fields[i].type) == 0) {
			snprintf(why, whylen, "field \"%s\" must be %s",
			    fields[i].name, ctl_typename(fields[i].type));
			return -1;
		}
	}
	for (i = 0; i < nfields; i++)
		if (fields[i].required &&
		    cJSON_GetObjectItemCaseSensitive(o, fields[i].name) ==
		    NULL) {
			snprintf(why, whylen, "missing field \"%s\"",
			    fields[i].name);
			return -1;
		}
	return 0;
}

/* ---- handlers ------------------------------------------------------------ */

static const struct ctl_field hello_fields[] = {
	{ "version", cJSON_Number, 1 },
	{ "client", cJSON_String, 0 },
};

static void
ctl_hello(struct ctl_conn *c, uint32_t id, cJSON *req, int fd)
{
	(void)fd;
	cJSON	*v, *cl, *o;

	v = cJSON_GetObjectItemCaseSensitive(req, "version");
	if (v->valuedouble != SBX_PROTOCOL_VERSION) {
		reply_error(c, id, 1, SBX_E_VERSION, "protocol version %g is "
		    "not supported; this monitor speaks version %d",
		    v->valuedouble, SBX_PROTOCOL_VERSION);
		return;
	}
	cl = cJSON_GetObjectItemCaseSensitive(req, "client");
	c->state = CTL_READY;
	evtimer_del(&c->tmo);
	audit("hello", c->uid, c->pid, "client %.64s",
	    cl != NULL ? cl->valuestring : "unnamed");
	o = reply_object();
	cJSON_AddNumberToObject(o, "version", SBX_PROTOCOL_VERSION);
	cJSON_AddStringToObject(o, "server", "sbx-monitor " SBX_VERSION);
	reply_send(c, SBX_MSG_HELLO, id, o);
}

static void
ctl_ping(struct ctl_conn *c, uint32_t id, cJSON *req, int fd)
{
	(void)fd;
	(void)req;
	reply_send(c, SBX_MSG_PING, id, reply_object());
}

/* STATUS runs the self-test afresh; the reply follows its verdict. */
static void
ctl_status(struct ctl_conn *c, uint32_t id, cJSON *req, int fd)
{
	(void)req;
	(void)fd;
	selftest_status(c, id);
}

static const struct ctl_field privs_fields[] = {
	{ "name", cJSON_String, 0 },
};

static void
ctl_privs(struct ctl_conn *c, uint32_t id, cJSON *req, int fd)
{
	(void)fd;
	const struct monitor_priv	*p;
	cJSON				*o, *names, *name;
	char				*text;

	name = cJSON_GetObjectItemCaseSensitive(req, "name");
	o = reply_object();
	if (name == NULL) {
		if ((names = cJSON_AddArrayToObject(o, "names")) == NULL)
			fatalx("out of memory");
		for (p = monitor_privs; p->name != NULL; p++)
			cJSON_AddItemToArray(names,
			    cJSON_CreateString(p->name));
		reply_send(c, SBX_MSG_PRIVS, id, o);
		return;
	}
	for (p = monitor_privs; p->name != NULL; p++)
		if (strcmp(p->name, name->valuestring) == 0)
			break;
	if (p->name == NULL) {
		cJSON_Delete(o);
		reply_error(c, id, 0, SBX_E_NOT_FOUND, "no privilege table "
		    "named \"%.64s\"", name->valuestring);
		return;
	}
	text = monitor_priv_text(p);
	cJSON_AddStringToObject(o, "name", p->name);
	cJSON_AddStringToObject(o, "text", text);
	free(text);
	reply_send(c, SBX_MSG_PRIVS, id, o);
}

static const struct ctl_field run_fields[] = {
	{ "argv", cJSON_Array, 1 },
	{ "profile", cJSON_String, 0 },
	{ "timeout", cJSON_Number, 0 },
	{ "env", cJSON_Object, 0 },
	{ "fds", cJSON_Array, 0 },
	{ "pty", cJSON_True | cJSON_False, 0 },
	{ "rows", cJSON_Number, 0 },
	{ "cols", cJSON_Number, 0 },
	{ "overlay", cJSON_True | cJSON_False, 0 },
	{ "overlay_into", cJSON_String, 0 },
	{ "t0_us", cJSON_Number, 0 },
};

/* RUN: its checks and the sandbox are runspec.c's. */
static void
ctl_run(struct ctl_conn *c, uint32_t id, cJSON *req, int fd)
{
	(void)fd;
	runspec_run(c, id, c->uid, c->gid, c->pid, req);
}

/* CHANGES_OPEN, CHANGES_DISCARD: changesreq.c. */
static const struct ctl_field changes_fields[] = {
	{ "id", cJSON_String, 1 },
};

static const struct ctl_field fd_fields[] = {
	{ "slot", cJSON_String, 1 },
};

/*
 * A descriptor for a pending RUN.  The sandbox runs as the monitor's user,
 * not the agent's, so a working directory must be the agent's own:
 * otherwise an agent could hand over a directory only the monitor's user
 * may write and write there through a sandbox.
 */
static void
ctl_fd(struct ctl_conn *c, uint32_t id, cJSON *req, int fd)
{
	struct stat	 st;
	const cJSON	*sl;
	char		 why[160];
	int		 slot;

	sl = cJSON_GetObjectItemCaseSensitive(req, "slot");
	if (fd == -1) {
		reply_error(c, id, 1, SBX_E_BAD_REQUEST, "fd: no descriptor "
		    "came with it");
		return;
	}
	if ((slot = runspec_slot(sl->valuestring)) == -1) {
		close(fd);
		reply_error(c, id, 1, SBX_E_BAD_REQUEST, "fd: unknown slot "
		    "\"%.32s\"", sl->valuestring);
		return;
	}
	if (passed_fd_mode(fd, 0, sl->valuestring, why, sizeof(why)) == -1) {
		close(fd);
		reply_error(c, id, 0, SBX_E_BAD_REQUEST, "fd: %s", why);
		return;
	}
	if (slot == LAUNCH_SLOT_WORKDIR) {
		if (fstat(fd, &st) == -1 || !S_ISDIR(st.st_mode)) {
			close(fd);
			reply_error(c, id, 0, SBX_E_BAD_REQUEST, "fd: the "
			    "workdir descriptor is not a directory");
			return;
		}
		if (c->uid != 0 && st.st_uid != c->uid) {
			close(fd);
			reply_error(c, id, 0, SBX_E_BAD_REQUEST, "fd: the "
			    "workdir is owned by uid %u, not by you (uid %u)",
			    (unsigned)st.st_uid, (unsigned)c->uid);
			return;
		}
	}
	/* Descriptors are pipelined behind their RUN, so they may arrive
	 * after it was refused: an error for each, the connection stays. */
	if (msb_fd(c, id, slot, fd, why, sizeof(why)) == -1) {
		close(fd);
		reply_error(c, id, 0, SBX_E_BAD_REQUEST, "fd: %s", why);
	}
}

static const struct ctl_field signal_fields[] = {
	{ "sandbox", cJSON_Number, 1 },
	{ "signal", cJSON_String, 1 },
};

static void
ctl_signal(struct ctl_conn *c, uint32_t id, cJSON *req, int fd)
{
	static const struct { const char *name; int signo; } sigs[] = {
		{ "HUP", SIGHUP }, { "INT", SIGINT }, { "KILL", SIGKILL },
		{ "QUIT", SIGQUIT }, { "TERM", SIGTERM },
	};
	const cJSON	*sb, *sg;
	char		 why[160];
	size_t		 i;

	(void)fd;
	sb = cJSON_GetObjectItemCaseSensitive(req, "sandbox");
	sg = cJSON_GetObjectItemCaseSensitive(req, "signal");
	for (i = 0; i < nitems(sigs); i++)
		if (strcmp(sigs[i].name, sg->valuestring) == 0)
			break;
	if (i == nitems(sigs)) {
		reply_error(c, id, 0, SBX_E_BAD_REQUEST, "signal: one of HUP, "
		    "INT, KILL, QUIT, TERM");
		return;
	}
	if (sb->valuedouble < 1 || sb->valuedouble > UINT32_MAX ||
	    msb_signal(c, (uint32_t)sb->valuedouble, sigs[i].signo, why,
	    sizeof(why)) == -1) {
		reply_error(c, id, 0, SBX_E_NOT_FOUND, "signal: %s",
		    sb->valuedouble >= 1 ? why : "no such sandbox");
		return;
	}
	reply_send(c, SBX_MSG_SIGNAL, id, reply_object());
}

static const struct ctl_field resize_fields[] = {
	{ "sandbox", cJSON_Number, 1 },
	{ "rows", cJSON_Number, 1 },
	{ "cols", cJSON_Number, 1 },
};

/* RESIZE: a pty's window size; pid 1 sets it on the master, and the
 * kernel sends SIGWINCH to the pty's foreground process group. */
static void
ctl_resize(struct ctl_conn *c, uint32_t id, cJSON *req, int fd)
{
	const cJSON	*sb, *rw, *cl;
	char		 why[160];

	(void)fd;
	sb = cJSON_GetObjectItemCaseSensitive(req, "sandbox");
	rw = cJSON_GetObjectItemCaseSensitive(req, "rows");
	cl = cJSON_GetObjectItemCaseSensitive(req, "cols");
	if (!runspec_winsize(rw) || !runspec_winsize(cl)) {
		reply_error(c, id, 0, SBX_E_BAD_REQUEST, "resize: rows and "
		    "cols are whole numbers in 1..65535");
		return;
	}
	if (sb->valuedouble < 1 || sb->valuedouble > UINT32_MAX ||
	    msb_resize(c, (uint32_t)sb->valuedouble,
	    (uint16_t)rw->valuedouble, (uint16_t)cl->valuedouble, why,
	    sizeof(why)) == -1) {
		reply_error(c, id, 0, SBX_E_NOT_FOUND, "resize: %s",
		    sb->valuedouble >= 1 ? why : "no such sandbox");
		return;
	}
	reply_send(c, SBX_MSG_RESIZE, id, reply_object());
}

static const struct ctl_field pload_fields[] = {
	{ "allowBundleProviders", cJSON_True | cJSON_False, 1 },
};

/* PROVIDER_LOAD: the bundle directory rides along as a descriptor. */
static void
ctl_pload(struct ctl_conn *c, uint32_t id, cJSON *req, int fd)
{
	char	 why[160];

	/* The runner reads the bundle with the service's rights: the
	 * caller's own open(2) for reading is what entitles it to. */
	if (passed_fd_mode(fd, PASSED_FD_READ | PASSED_FD_DIR,
	    "bundle directory", why, sizeof(why)) == -1) {
		close(fd);
		reply_error(c, id, 0, SBX_E_BAD_REQUEST, "provider load: %s",
		    why);
		return;
	}
	provider_load(c, id, c->uid, c->pid, req, fd);
}

static void
ctl_plist(struct ctl_conn *c, uint32_t id, cJSON *req, int fd)
{
	(void)req;
	(void)fd;
	provider_list(c, id, c->uid);
}

static const struct ctl_field pinspect_fields[] = {
	{ "provider", cJSON_String, 1 },
};

static void
ctl_pinspect(struct ctl_conn *c, uint32_t id, cJSON *req, int fd)
{
	(void)fd;
	provider_inspect(c, id, c->uid, cJSON_GetObjectItemCaseSensitive(req,
	    "provider")->valuestring);
}

static void
ctl_punload(struct ctl_conn *c, uint32_t id, cJSON *req, int fd)
{
	(void)fd;
	provider_unload(c, id, c->uid, c->pid,
	    cJSON_GetObjectItemCaseSensitive(req, "provider")->valuestring);
}

static const struct ctl_field pinvoke_fields[] = {
	{ "provider", cJSON_String, 1 },
	{ "clockMs", cJSON_Number, 1 },
	{ "timeoutMs", cJSON_Number, 0 },
	{ "maxRecords", cJSON_Number, 0 },
	{ "maxOutputBytes", cJSON_Number, 0 },
};

/* PROVIDER_INVOKE: the records descriptor rides along; the output one
 * follows as PROVIDER_OUTPUT with the same id. */
static void
ctl_pinvoke(struct ctl_conn *c, uint32_t id, cJSON *req, int fd)
{
	char	 why[160];

	if (passed_fd_mode(fd, PASSED_FD_READ, "records", why,
	    sizeof(why)) == -1) {
		close(fd);
		reply_error(c, id, 0, SBX_E_BAD_REQUEST, "provider invoke: "
		    "%s", why);
		return;
	}
	provider_invoke(c, id, c->uid, c->pid, req, fd);
}

static void
ctl_poutput(struct ctl_conn *c, uint32_t id, cJSON *req, int fd)
{
	char	 why[160];

	(void)req;
	if (fd != -1 && passed_fd_mode(fd, 0, "output", why,
	    sizeof(why)) == -1) {
		close(fd);
		reply_error(c, id, 0, SBX_E_BAD_REQUEST, "provider output: "
		    "%s", why);
		return;
	}
	provider_output(c, id, fd);
}

static const struct ctl_field gevaluate_fields[] = {
	{ "now", cJSON_String, 1 },
	{ "trustedBindingDigest", cJSON_String, 1 },
	{ "binding", cJSON_String, 1 },
	{ "metrics", cJSON_String, 1 },
	{ "holdout", cJSON_String, 1 },
	{ "upstream", cJSON_String, 0 },
	{ "packDirs", cJSON_Array, 0 },
	{ "records", cJSON_Array, 0 },
};

/* GATES_EVALUATE: the result pipe rides along; the documents' follow as
 * GATES_DOC with the same id, in the order the request names them. */
static void
ctl_gevaluate(struct ctl_conn *c, uint32_t id, cJSON *req, int fd)
{
	char	 why[160];

	if (passed_fd_mode(fd, 0, "result", why, sizeof(why)) == -1) {
		close(fd);
		reply_error(c, id, 0, SBX_E_BAD_REQUEST, "gates evaluate: "
		    "%s", why);
		return;
	}
	mgates_evaluate(c, id, c->uid, c->pid, req, fd, 0);
}

/* GATES_VERIFY: evaluate's fields with the report and without a clock
 * (the report's own); the same job, its documents after it. */
static const struct ctl_field gverify_fields[] = {
	{ "trustedBindingDigest", cJSON_String, 1 },
	{ "report", cJSON_String, 1 },
	{ "binding", cJSON_String, 1 },
	{ "metrics", cJSON_String, 1 },
	{ "holdout", cJSON_String, 1 },
	{ "upstream", cJSON_String, 0 },
	{ "packDirs", cJSON_Array, 0 },
	{ "records", cJSON_Array, 0 },
};

static void
ctl_gverify(struct ctl_conn *c, uint32_t id, cJSON *req, int fd)
{
	char	 why[160];

	if (passed_fd_mode(fd, 0, "result", why, sizeof(why)) == -1) {
		close(fd);
		reply_error(c, id, 0, SBX_E_BAD_REQUEST, "gates verify: "
		    "%s", why);
		return;
	}
	mgates_evaluate(c, id, c->uid, c->pid, req, fd, 1);
}

static const struct ctl_field gdoc_fields[] = {
	{ "errno", cJSON_Number, 0 },
};

/* GATES_DOC: a document's descriptor, or the errno that kept the agent
 * from opening it (refused by the runner where the reference reads it). */
static void
ctl_gdoc(struct ctl_conn *c, uint32_t id, cJSON *req, int fd)
{
	const cJSON	*e = cJSON_GetObjectItemCaseSensitive(req, "errno");
	char		 why[160];
	int		 err = 0;

	if (e != NULL) {
		if (fd != -1 || e->valuedouble < 1 || e->valuedouble > 4095 ||
		    e->valuedouble != (int)e->valuedouble) {
			if (fd != -1)
				close(fd);
			reply_error(c, id, 0, SBX_E_BAD_REQUEST, "gates doc: "
			    "errno is an error number (1 to 4095) sent "
			    "instead of a descriptor");
			return;
		}
		err = (int)e->valuedouble;
	} else if (fd == -1) {
		reply_error(c, id, 0, SBX_E_BAD_REQUEST, "gates doc: the "
		    "descriptor is missing");
		return;
	}
	if (fd != -1 && passed_fd_mode(fd, PASSED_FD_READ, "document", why,
	    sizeof(why)) == -1) {
		close(fd);
		reply_error(c, id, 0, SBX_E_BAD_REQUEST, "gates doc: %s",
		    why);
		return;
	}
	mgates_doc(c, id, fd, err);
}

/*
 * Every descriptor a client passes, before anything else touches it: is
 * it on a file system whose close(2) waits for a daemon the client may
 * run (passed_fd_check)?  Such a one is refused and closed by the closer
 * thread, never on the event loop; past CLOSER_PER_UID of them the
 * client is not read any more, and what it still queues in its socket is
 * dropped by the kernel, which does not flush.
 */
static int
ctl_passed_fd(struct ctl_conn *c, uint32_t id, const char *name, int fd)
{
	char	 why[160];
	int	 over;

	if (passed_fd_check(fd, why, sizeof(why)) == 0)
		return 0;
	if ((over = closer_hand(fd, c->uid) == -1))
		audit("disconnect", c->uid, c->pid, "more than %d refused "
		    "descriptors of uid %u wait for their close",
		    CLOSER_PER_UID, (unsigned)c->uid);
	reply_error(c, id, over, SBX_E_BAD_REQUEST, "%s: %s", name, why);
	return -1;
}

/* A received descriptor imsg drops itself (a violation, a clear). */
static void
ctl_rdrop(int fd, void *arg)
{
	struct ctl_conn	*c = arg;
	char		 why[160];

	if (passed_fd_check(fd, why, sizeof(why)) == -1)
		(void)closer_hand(fd, c->uid);
	else
		close(fd);
}

/*
 * The closed dispatch table: message type, the state it is permitted in,
 * whether it may carry a descriptor and, when it must, what the
 * descriptor is (for the error that says it is missing), its schema,
 * and its handler.  "fd" and "gates doc" check their own: a missing
 * descriptor there ends the connection, or an errno stands in for it.
 */
#define FD_NO		0, NULL
#define FD_MAY		1, NULL
#define FD_MUST(what)	1, (what)
static const struct ctl_handler {
	uint32_t		 type;
	const char		*name;
	enum ctl_state		 state;
	int			 takes_fd;
	const char		*needs_fd;
	const struct ctl_field	*fields;
	size_t			 nfields;
	void			(*fn)(struct ctl_conn *, uint32_t, cJSON *,
				    int);
} ctl_table[] = {
	{ SBX_MSG_HELLO, "hello", CTL_NEW, FD_NO, hello_fields,
	  nitems(hello_fields), ctl_hello },
	{ SBX_MSG_PING, "ping", CTL_READY, FD_NO, NULL, 0, ctl_ping },
	{ SBX_MSG_STATUS, "status", CTL_READY, FD_NO, NULL, 0, ctl_status },
	{ SBX_MSG_PRIVS, "privs", CTL_READY, FD_NO, privs_fields,
	  nitems(privs_fields), ctl_privs },
	{ SBX_MSG_RUN, "run", CTL_READY, FD_NO, run_fields,
	  nitems(run_fields), ctl_run },
	{ SBX_MSG_FD, "fd", CTL_READY, FD_MAY, fd_fields,
	  nitems(fd_fields), ctl_fd },
	{ SBX_MSG_SIGNAL, "signal", CTL_READY, FD_NO, signal_fields,
	  nitems(signal_fields), ctl_signal },
	{ SBX_MSG_RESIZE, "resize", CTL_READY, FD_NO, resize_fields,
	  nitems(resize_fields), ctl_resize },
	{ SBX_MSG_PROVIDER_LOAD, "provider load", CTL_READY,
	  FD_MUST("bundle directory"), pload_fields, nitems(pload_fields),
	  ctl_pload },
	{ SBX_MSG_PROVIDER_LIST, "provider list", CTL_READY, FD_NO, NULL, 0,
	  ctl_plist },
	{ SBX_MSG_PROVIDER_INSPECT, "provider inspect", CTL_READY, FD_NO,
	  pinspect_fields, nitems(pinspect_fields), ctl_pinspect },
	{ SBX_MSG_PROVIDER_INVOKE, "provider invoke", CTL_READY,
	  FD_MUST("records"), pinvoke_fields, nitems(pinvoke_fields),
	  ctl_pinvoke },
	{ SBX_MSG_PROVIDER_OUTPUT, "provider output", CTL_READY,
	  FD_MUST("output"), NULL, 0, ctl_poutput },
	{ SBX_MSG_GATES_EVALUATE, "gates evaluate", CTL_READY,
	  FD_MUST("result"), gevaluate_fields, nitems(gevaluate_fields),
	  ctl_gevaluate },
	{ SBX_MSG_GATES_DOC, "gates doc", CTL_READY, FD_MAY, gdoc_fields,
	  nitems(gdoc_fields), ctl_gdoc },
	{ SBX_MSG_GATES_VERIFY, "gates verify", CTL_READY,
	  FD_MUST("result"), gverify_fields, nitems(gverify_fields),
	  ctl_gverify },
	{ SBX_MSG_PROVIDER_UNLOAD, "provider unload", CTL_READY, FD_NO,
	  pinspect_fields, nitems(pinspect_fields), ctl_punload },
	{ SBX_MSG_CHANGES_LIST, "changes", CTL_READY, FD_NO, NULL, 0,
	  ctl_changes_list },
	{ SBX_MSG_CHANGES_OPEN, "changes open", CTL_READY, FD_NO,
	  changes_fields, nitems(changes_fields), ctl_changes_open },
	{ SBX_MSG_CHANGES_DISCARD, "discard", CTL_READY, FD_NO,
	  changes_fields, nitems(changes_fields), ctl_changes_discard },
};

/*
 * Requests whose answer comes later, from a role or a sandbox: what a
 * connection has in flight (client-requests-max).  The others are
 * answered before the next request is read, and follow-ups (fd, gates
 * doc, provider output) belong to a request already counted.
 */
static int
ctl_starts_work(uint32_t type)
{
	switch (type) {
	case SBX_MSG_STATUS:
	case SBX_MSG_RUN:
	case SBX_MSG_PROVIDER_LOAD:
	case SBX_MSG_PROVIDER_INVOKE:
	case SBX_MSG_GATES_EVALUATE:
	case SBX_MSG_GATES_VERIFY:
		return 1;
	}
	return 0;
}

/*
 * The connection's caps, and its peer's, before a request is handled:
 * 0, or -1 with the descriptor closed and the request answered "limit"
 * (the connection stays: the peer may retry once it has less going).
 */
static int
ctl_caps(struct ctl_conn *c, const struct ctl_handler *h, uint32_t id,
    int fd)
{
	uint32_t	 reqs, fds;

	conn_uid_totals(c->uid, &reqs, &fds);
	if (fd != -1 && !ctl_fd_room(fd, 1)) {
		close(fd);
		reply_error_limit(c, id, SBX_E_LIMIT, "descriptors",
		    "%s: the monitor's descriptors are nearly all in use "
		    "(RLIMIT_NOFILE %llu less the roles' reserve)", h->name,
		    (unsigned long long)fdlimit);
		return -1;
	}
	if (fd != -1 && c->fds >= ctlconf->client_fds_max) {
		close(fd);
		reply_error_limit(c, id, SBX_E_LIMIT, "client-fds-max",
		    "%s: client-fds-max %u descriptors held for this "
		    "connection", h->name, ctlconf->client_fds_max);
		return -1;
	}
	if (fd != -1 && fds >= ctlconf->peer_fds_max) {
		close(fd);
		reply_error_limit(c, id, SBX_E_LIMIT, "peer-fds-max",
		    "%s: peer-fds-max %u descriptors held for uid %u", h->name,
		    ctlconf->peer_fds_max, (unsigned)c->uid);
		return -1;
	}
	if (!ctl_starts_work(h->type))
		return 0;
	if (c->inflight >= ctlconf->client_requests_max) {
		if (fd != -1)
			close(fd);
		reply_error_limit(c, id, SBX_E_LIMIT, "client-requests-max",
		    "%s: client-requests-max %u requests in flight on this "
		    "connection", h->name, ctlconf->client_requests_max);
		return -1;
	}
	if (reqs >= ctlconf->peer_requests_max) {
		if (fd != -1)
			close(fd);
		reply_error_limit(c, id, SBX_E_LIMIT, "peer-requests-max",
		    "%s: peer-requests-max %u requests in flight for uid %u",
		    h->name, ctlconf->peer_requests_max, (unsigned)c->uid);
		return -1;
	}
	return 0;
}

static void
ctl_request(struct ctl_conn *c, struct imsg *imsg)
{
	const struct ctl_handler	*h = NULL;
	uint32_t			 type, id;
	cJSON				*req;
	char				 why[160];
	size_t				 i, len;
	int				 fd;

	type = imsg_get_type(imsg);
	id = imsg_get_id(imsg);
	len = imsg_get_len(imsg);
	fd = imsg_get_fd(imsg);
	for (i = 0; i < nitems(ctl_table); i++)
		if (ctl_table[i].type == type)
			h = &ctl_table[i];
	if (fd != -1 && ctl_passed_fd(c, id, h != NULL ? h->name :
	    "request", fd) == -1)
		return;
	if (h == NULL) {
		if (fd != -1)
			close(fd);
		reply_error(c, id, 1, SBX_E_UNKNOWN_TYPE, "no request has type "
		    "%u", type);
		return;
	}
	if (fd != -1 && !h->takes_fd) {
		close(fd);
		reply_error(c, id, 1, SBX_E_UNEXPECTED_FD, "%s takes no "
		    "descriptor", h->name);
		return;
	}
	if (c->state != h->state) {
		if (fd != -1)
			close(fd);
		if (c->state == CTL_NEW)
			reply_error(c, id, 1, SBX_E_HELLO_REQUIRED, "%s before "
			    "hello", h->name);
		else
			reply_error(c, id, 1, SBX_E_BAD_REQUEST, "%s is not "
			    "permitted now", h->name);
		return;
	}
	if ((req = cJSON_ParseWithLength(imsg->data, len)) == NULL ||
	    !cJSON_IsObject(req)) {
		if (fd != -1)
			close(fd);
		cJSON_Delete(req);
		reply_error(c, id, 1, SBX_E_BAD_JSON, "%s: payload of %zu bytes "
		    "is not a JSON object", h->name, len);
		return;
	}
	if (ctl_schema(req, h->fields, h->nfields, why, sizeof(why)) == -1) {
		if (fd != -1)
			close(fd);
		cJSON_Delete(req);
		reply_error(c, id, 1, SBX_E_BAD_REQUEST, "%s: %s", h->name, why);
		return;
	}
	if (fd == -1 && h->needs_fd != NULL) {
		cJSON_Delete(req);
		reply_error(c, id, 0, SBX_E_BAD_REQUEST, "%s: the %s "
		    "descriptor is missing", h->name, h->needs_fd);
		return;
	}
	if (ctl_caps(c, h, id, fd) == -1) {
		cJSON_Delete(req);
		return;
	}
	h->fn(c, id, req, fd);
	cJSON_Delete(req);
}

/* The read side failed on framing: say exactly what, then disconnect. */
static void
ctl_frame_error(struct ctl_conn *c)
{
	uint32_t	 len;

	if (errno == ERANGE) {
		len = imsgbuf_badlen(&c->ibuf);
		if (len > SBX_MSG_MAXSIZE)
			reply_error(c, 0, 1, SBX_E_OVERSIZE, "frame of %u bytes "
			    "exceeds the %d-byte limit", len, SBX_MSG_MAXSIZE);
		else
			reply_error(c, 0, 1, SBX_E_BAD_FRAME, "frame length %u "
			    "is below the %d-byte header", len,
			    IMSG_HEADER_SIZE);
	} else
		reply_error(c, 0, 1, SBX_E_BAD_FRAME, "descriptor without a "
		    "message, or more than one descriptor (%s)",
		    strerror(errno));
}

static void
ctl_dispatch(int fd, short event, void *arg)
{
	struct ctl_conn	*c = arg;
	struct imsg	 imsg;
	int		 n, got, reads, handled;

	(void)fd;
	if (event & EV_WRITE) {
		if (imsgbuf_write(&c->ibuf) == -1) {
			ctl_close(c);
			return;
		}
	}
	if ((event & EV_READ) && c->state == CTL_CLOSING) {
		if (!ctl_drain(c)) {
			ctl_close(c);
			return;
		}
	} else if (event & (EV_READ | EV_TIMEOUT)) {
		/*
		 * Read again while reads bring requests: a request with a
		 * descriptor (run's stdio) comes in a recvmsg of its own.
		 * Bounded in reads and in requests, so one busy peer cannot
		 * keep the others waiting; and not past the point where its
		 * unread replies pause it.
		 */
		c->more = 0;
		handled = 0;
		for (reads = 0; reads < CTL_READS_MAX; reads++) {
			if ((n = imsgbuf_read(&c->ibuf)) == 0 ||
			    (n == -1 && errno != EBADMSG && errno != ERANGE)) {
				ctl_close(c);
				return;
			}
			if (n == -1) {
				ctl_frame_error(c);
				conn_event_add(c);
				return;
			}
			got = 0;
			while (c->state != CTL_CLOSING) {
				if (handled >= CTL_MSGS_MAX ||
				    imsgbuf_queuebytes(&c->ibuf) >
				    ctlconf->client_queue_max) {
					c->more = 1;
					break;
				}
				if ((n = imsg_get(&c->ibuf, &imsg)) == -1) {
					ctl_frame_error(c);
					break;
				}
				if (n == 0)
					break;
				ctl_request(c, &imsg);
				imsg_free(&imsg);
				got++;
				handled++;
			}
			if (got == 0 || c->more || c->state == CTL_CLOSING)
				break;
		}
	}
	if (c->state == CTL_CLOSING && imsgbuf_queuelen(&c->ibuf) > 0)
		(void)imsgbuf_write(&c->ibuf);
	conn_event_add(c);
}
