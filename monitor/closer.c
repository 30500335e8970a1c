/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * closer.c: the thread that closes descriptors whose close(2) may stall.
 *
 * A client may pass the monitor a descriptor on a file system whose
 * close waits for a daemon the client runs (FUSE: close calls ->flush,
 * and fuse_flush waits for the daemon's reply).  Once the descriptor is
 * in our table every way of getting rid of it (close, dup2 over it,
 * close_range, exit) flushes, so the event loop must not be the one that
 * closes it: control.c refuses the request (passed_fd_check) and hands
 * the descriptor here.  A stalled close then blocks this thread only.
 *
 * The thread is started before monitor.priv is applied: its filter comes
 * with SECCOMP_FILTER_FLAG_TSYNC, the monitor's rlimit nproc 0 does not
 * touch a thread that already exists, and no clone rule is needed.
 * closer_init() waits until the thread runs its own code, so that what
 * glibc does when a thread starts (rseq, set_robust_list) is over before
 * the filter comes; afterwards the thread needs only close and futex,
 * which the table allows.  It
 * blocks every signal, so libevent's handlers run on the event loop.
 *
 * What the thread holds is bounded: a ring of CLOSER_RING descriptors.
 * closer_hand() says when a uid holds more than CLOSER_PER_UID of them;
 * control.c then closes that client's connection, and the descriptors
 * still queued in its socket are dropped by the kernel, which does not
 * flush.  A full ring leaks the descriptor on purpose (never closed),
 * since any close could stall the event loop.
 */
#include <sys/types.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "monitor.h"

#define CLOSER_RING	1024

static pthread_mutex_t	 lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t	 more = PTHREAD_COND_INITIALIZER;
static struct {
	int	 fd;
	uid_t	 uid;
}			 ring[CLOSER_RING];
static size_t		 head, len;	/* ring[head] is being closed */
static int		 started, running;
static unsigned long	 leaked;

static void *
closer_main(void *arg)
{
	int	 fd;

	(void)arg;
	/* glibc registered rseq and the robust list before calling us:
	 * only now may the filter, which allows neither, come. */
	pthread_mutex_lock(&lock);
	running = 1;
	pthread_cond_broadcast(&more);
	pthread_mutex_unlock(&lock);
	for (;;) {
		pthread_mutex_lock(&lock);
		while (len == 0)
			pthread_cond_wait(&more, &lock);
		fd = ring[head].fd;
		pthread_mutex_unlock(&lock);
		/* The one call this thread exists for: it may wait for as
		 * long as the client's daemon wants. */
		(void)close(fd);
		pthread_mutex_lock(&lock);
		head = (head + 1) % CLOSER_RING;
		len--;
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

void
closer_init(void)
{
	pthread_t	 t;
	sigset_t	 all, old;
	int		 e;

	sigfillset(&all);
	if ((e = pthread_sigmask(SIG_SETMASK, &all, &old)) != 0)
		fatalx("%s: pthread_sigmask: %s", __func__, strerror(e));
	e = pthread_create(&t, NULL, closer_main, NULL);
	(void)pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e != 0)
		fatalx("%s: pthread_create: %s", __func__, strerror(e));
	(void)pthread_detach(t);
	pthread_mutex_lock(&lock);
	while (!running)
		pthread_cond_wait(&more, &lock);
	pthread_mutex_unlock(&lock);
	started = 1;
}

/*
 * Hand fd, passed by uid, to the closer.  0, or -1 when uid now holds
 * more than CLOSER_PER_UID descriptors there (or the ring is full): the
 * caller stops reading that client.  The descriptor is ours no more
 * either way.
 */
int
closer_hand(int fd, uid_t uid)
{
	size_t	 i, n = 0;
	int	 full = 0;

	if (!started) {
		/* Unit tests run without the thread. */
		(void)close(fd);
		return 0;
	}
	pthread_mutex_lock(&lock);
	for (i = 0; i < len; i++)
		if (ring[(head + i) % CLOSER_RING].uid == uid)
			n++;
	if (len == CLOSER_RING) {
		full = 1;
		leaked++;
	} else {
		ring[(head + len) % CLOSER_RING].fd = fd;
		ring[(head + len) % CLOSER_RING].uid = uid;
		len++;
		pthread_cond_signal(&more);
	}
	pthread_mutex_unlock(&lock);
	if (full) {
		log_warnx("closer: %d descriptors wait for their close; one "
		    "of uid %u is left open (%lu so far)", CLOSER_RING,
		    (unsigned)uid, leaked);
		return -1;
	}
	return n + 1 > CLOSER_PER_UID ? -1 : 0;
}
