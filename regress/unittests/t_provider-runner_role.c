/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * t_provider-runner_role: sbx-provider-runner as a role.  The test plays
 * the monitor: it starts the built binary with a socketpair at descriptor
 * 3, sends the allowlist, loads the example bundle by its directory
 * descriptor, answers each SPAWN as the launcher would (here by running
 * node itself with the pipe ends it was handed, or by reporting a sandbox
 * that timed out, failed to start or misbehaved), and invokes the issued
 * provider with the blob it was given.  The runner runs under its own
 * privilege file throughout, so every flow here also shows that its filter
 * lets it do its work.  Also: the blob format and the run verdicts,
 * directly.
 */
#include <sys/mman.h>
#include <sys/socket.h>

#include "proto.h"
#include "role.h"
#include "provtest.h"

#define NOW_MS		1788393600000LL	/* 2026-09-03T00:00:00.000Z */
#define EXAMPLE_DIGEST	"sha256:6088dc95a50be00fa4f7b1fa2082179150f781967c" \
			"911eae5ffce3b9e8710cd1"
#define EXAMPLE_METRICS	"{\"failures\":{\"description\":\"Records with " \
			"failed: true, per slice and pooled.\",\"kind\":" \
			"\"proportion\"}}"
#define RECORDS		"[{\"slice\":\"a\",\"failed\":false},{\"slice\":" \
			"\"a\",\"failed\":false},{\"slice\":\"b\",\"failed\":" \
			"true},{\"slice\":\"b\",\"failed\":false}]"
#define RESULT_METRICS	"{\"failures\":{\"bySlice\":{\"a\":{\"events\":0," \
			"\"n\":2},\"b\":{\"events\":1,\"n\":2}},\"pooled\":" \
			"{\"events\":1,\"n\":4}}}"

/* How the stand-in launcher answers a SPAWN. */
enum stand {
	SB_NONE,		/* no spawn may come */
	SB_NODE,		/* node and the driver, as in the sandbox */
	SB_SETUP_FAILED,	/* the sandbox never started */
	SB_TIMEOUT,		/* killed at its deadline */
	SB_FLOOD,		/* writes far past the output cap, exits 0 */
	SB_FORGE,		/* a frame with a guessed nonce, exits 0 */
	SB_EXIT3		/* reads its stdin and exits 3 */
};

struct mon {
	pid_t			 pid;
	struct imsgbuf		 ib;
	char			 node[PATH_MAX];
	struct prov_node	 flags;
	enum stand		 stand;
	int			 spawns;	/* SPAWNs answered */
	/* Pooled sandboxes the runner asked for, not yet taken. */
	struct {
		uint32_t	 tag;
		int		 in;
		int		 out;
	}			 pool[64];
	int			 npool;
	int			 pool_out;	/* SPAWN_STDOUT of one */
	uint32_t		 pool_out_tag;
	int			 arms;		/* ARMs answered */
	uint32_t		 arm_timeout;	/* the last ARM's */
	uint32_t		 arm_tag;	/* the last ARM's */
};

static int	mon_pool_msg(struct mon *, struct imsg *);
static void	mon_recv(struct mon *, struct imsg *);

/* The held sandbox an ARM names: its ends, no longer held. */
static void
mon_pool_take(struct mon *m, uint32_t tag, int *in, int *out)
{
	int	 i;

	for (i = 0; i < m->npool; i++)
		if (m->pool[i].tag == tag)
			break;
	ATF_REQUIRE_MSG(i < m->npool, "ARM of sandbox %u, which was never "
	    "asked for as a pooled or reserved one", tag);
	*in = m->pool[i].in;
	*out = m->pool[i].out;
	m->pool[i] = m->pool[--m->npool];
}

/* Take pooled spawns until n are held; anything else fails the case. */
static void
mon_pool_await(struct mon *m, int n)
{
	struct imsg	 imsg;

	while (m->npool < n) {
		mon_recv(m, &imsg);
		ATF_REQUIRE_MSG(mon_pool_msg(m, &imsg), "message type %u "
		    "instead of a pooled spawn", imsg_get_type(&imsg));
		imsg_free(&imsg);
	}
	ATF_CHECK_EQ(m->npool, n);
}

/* Keep a pooled spawn (job 0) until a run takes it with ARM. */
static int
mon_pool_msg(struct mon *m, struct imsg *imsg)
{
	struct pr_spawn	 sp;

	if (imsg_get_type(imsg) != IMSG_PR_SPAWN_STDOUT &&
	    imsg_get_type(imsg) != IMSG_PR_SPAWN)
		return 0;
	ATF_REQUIRE(imsg_get_data(imsg, &sp, sizeof(sp)) == 0);
	if (!(sp.flags & PR_SPAWN_POOLED))
		return 0;
	ATF_CHECK((sp.flags & ~PR_SPAWN_RESERVED) == PR_SPAWN_POOLED);
	ATF_CHECK_EQ_MSG(sp.timeout_ms, 0, "a pooled spawn has no run "
	    "deadline yet");
	ATF_CHECK_EQ(imsg_get_id(imsg), 0);
	if (imsg_get_type(imsg) == IMSG_PR_SPAWN_STDOUT) {
		ATF_REQUIRE(m->pool_out == -1);
		ATF_REQUIRE((m->pool_out = imsg_get_fd(imsg)) != -1);
		m->pool_out_tag = sp.tag;
		return 1;
	}
	ATF_REQUIRE_MSG(m->pool_out != -1, "SPAWN before SPAWN_STDOUT");
	ATF_CHECK_EQ(sp.tag, m->pool_out_tag);
	ATF_REQUIRE(m->npool < (int)nitems(m->pool));
	m->pool[m->npool].tag = sp.tag;
	m->pool[m->npool].out = m->pool_out;
	ATF_REQUIRE((m->pool[m->npool].in = imsg_get_fd(imsg)) != -1);
	m->npool++;
	m->pool_out = -1;
	return 1;
}

/* What one job sent back. */
struct reply {
	unsigned char		*blob;
	size_t			 bloblen;
	struct pr_provider	 prov;
	int			 nprov;
	struct pr_done		 done;
};

/* ---- the monitor's side of the channel ---------------------------------- */

static void
runner_path(const atf_tc_t *tc, char *buf, size_t len)
{
	snprintf(buf, len, "%s/../../libexec/sbx/sbx-provider-runner",
	    atf_tc_get_config_var(tc, "srcdir"));
	ATF_REQUIRE_MSG(access(buf, X_OK) == 0, "%s: %s", buf,
	    strerror(errno));
}

static void
mon_recv(struct mon *m, struct imsg *imsg)
{
	int	 n;

	for (;;) {
		n = imsg_get(&m->ib, imsg);
		ATF_REQUIRE_MSG(n != -1, "malformed message from the runner");
		if (n == 1)
			return;
		n = imsgbuf_read(&m->ib);
		ATF_REQUIRE_MSG(n != -1, "channel read: %s", strerror(errno));
		if (n == 0)
			atf_tc_fail("the runner closed its channel (it died)");
	}
}

static void
mon_send(struct mon *m, uint32_t type, uint32_t peerid, int fd,
    const void *data, size_t len)
{
	ATF_REQUIRE(imsg_compose(&m->ib, type, peerid, 0, fd, data,
	    len) == 0);
	ATF_REQUIRE(imsgbuf_flush(&m->ib) == 0);
}

static void
mon_start(const atf_tc_t *tc, struct mon *m, enum stand stand)
{
	struct prov_error	 err;
	struct role_ready	 rr;
	struct imsg		 imsg;
	char			 path[PATH_MAX];
	int			 sv[2];

	memset(m, 0, sizeof(*m));
	m->stand = stand;
	m->pool_out = -1;
	tp_node(m->node, sizeof(m->node));
	ATF_REQUIRE_MSG(prov_node_probe(m->node, &m->flags, &err) == 0, "%s",
	    err.msg);
	runner_path(tc, path, sizeof(path));
	signal(SIGPIPE, SIG_IGN);
	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
	    sv) == 0);
	ATF_REQUIRE((m->pid = fork()) != -1);
	if (m->pid == 0) {
		if (sv[1] == ROLE_FD) {
			if (fcntl(ROLE_FD, F_SETFD, 0) == -1)
				_exit(126);
		} else if (dup2(sv[1], ROLE_FD) == -1)
			_exit(126);
		closefrom(ROLE_FD + 1);
		execl(path, "sbx-provider-runner", "-P", "provider-runner",
		    (char *)NULL);
		_exit(127);
	}
	close(sv[1]);
	ATF_REQUIRE(imsgbuf_init(&m->ib, sv[0]) == 0);
	imsgbuf_allow_fdpass(&m->ib);
	mon_recv(m, &imsg);
	ATF_REQUIRE_EQ(imsg_get_type(&imsg), IMSG_ROLE_READY);
	ATF_REQUIRE(imsg_get_data(&imsg, &rr, sizeof(rr)) == 0);
	ATF_CHECK_EQ(rr.version, ROLE_PROTOCOL_VERSION);
	ATF_CHECK_EQ((pid_t)rr.pid, m->pid);
	imsg_free(&imsg);
}

/* The runner's exit status once the monitor goes away (0: it was fine). */
static int
mon_stop(struct mon *m)
{
	int	 st;

	imsgbuf_clear(&m->ib);
	close(m->ib.fd);
	while (waitpid(m->pid, &st, 0) == -1)
		ATF_REQUIRE(errno == EINTR);
	return st;
}

static void
mon_stop_clean(struct mon *m)
{
	int	 st = mon_stop(m);

	ATF_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "runner ended with status %#x (signal %d)", st,
	    WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* Send a protocol violation; the runner must end with fatalx (exit 1). */
static void
mon_expect_death(struct mon *m)
{
	struct imsg	 imsg;
	int		 n, st;

	for (;;) {
		if ((n = imsg_get(&m->ib, &imsg)) == 1) {
			imsg_free(&imsg);
			continue;
		}
		if (n == -1 || (n = imsgbuf_read(&m->ib)) <= 0)
			break;
	}
	st = mon_stop(m);
	ATF_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 1,
	    "runner ended with status %#x, not by fatalx", st);
}

static void
send_allowlist(struct mon *m, const void *buf, size_t len, size_t chunk,
    uint32_t total, struct pr_done *verdict)
{
	struct pr_allowlist_end	 end;
	struct imsg		 imsg;
	size_t			 off, n;

	for (off = 0; off < len; off += n) {
		n = len - off > chunk ? chunk : len - off;
		mon_send(m, IMSG_PR_ALLOWLIST, 0, -1, (const char *)buf + off,
		    n);
	}
	end.total = total;
	mon_send(m, IMSG_PR_ALLOWLIST_END, 7, -1, &end, sizeof(end));
	mon_recv(m, &imsg);
	ATF_REQUIRE_EQ(imsg_get_type(&imsg), IMSG_PR_ALLOWLIST_OK);
	ATF_CHECK_EQ(imsg_get_id(&imsg), 7);
	ATF_REQUIRE(imsg_get_data(&imsg, verdict, sizeof(*verdict)) == 0);
	ATF_CHECK(imsg_get_fd(&imsg) == -1);
	imsg_free(&imsg);
}

static void
read_fixture(const atf_tc_t *tc, const char *name, unsigned char **buf,
    size_t *len)
{
	char	 top[PATH_MAX], path[PATH_MAX + 128];
	int	 fd;

	tp_top(tc, top, sizeof(top));
	snprintf(path, sizeof(path), "%s/regress/fixtures/"
	    "gates-example-extension/%s", top, name);
	ATF_REQUIRE_MSG((fd = open(path, O_RDONLY)) != -1, "%s", path);
	ATF_REQUIRE(read_bounded(fd, 1 << 20, buf, len) == 0);
	close(fd);
}

static void
good_allowlist(const atf_tc_t *tc, struct mon *m)
{
	struct pr_done	 v;
	unsigned char	*buf;
	size_t		 len;

	read_fixture(tc, "providers.json", &buf, &len);
	/* Small chunks: the runner reassembles them. */
	send_allowlist(m, buf, len, 100, (uint32_t)len, &v);
	ATF_CHECK_EQ_MSG(v.code, 0, "%s", v.msg);
	free(buf);
}

static int
bundle_dir(const atf_tc_t *tc)
{
	char	 top[PATH_MAX], dir[PATH_MAX + 64];

	tp_top(tc, top, sizeof(top));
	snprintf(dir, sizeof(dir), "%s/regress/fixtures/"
	    "gates-example-extension", top);
	return tp_opendir(dir);
}

/* ---- the stand-in launcher ---------------------------------------------- */

static void
stand_in(struct mon *m, uint32_t tag, int in, int out)
{
	struct launch_exit		 ex;
	posix_spawn_file_actions_t	 fa;
	const char			*av[PROV_NODE_ARGV_MAX];
	static const char		 flood[] =
	    "cat > /dev/null; head -c 2000000 /dev/zero";
	static const char		 forge[] =
	    "cat > /dev/null; printf 'AIWG-RESULT %064d {\"ok\":true,"
	    "\"result\":{\"metrics\":{}}}\\n' 0";
	pid_t				 pid;
	int				 st, r;

	memset(&ex, 0, sizeof(ex));
	m->spawns++;
	switch (m->stand) {
	case SB_NONE:
		atf_tc_fail("the runner asked for a sandbox; none was due");
		break;
	case SB_SETUP_FAILED:
		ex.reason = SANDBOX_SETUP_FAILED;
		ex.error = EPERM;
		strlcpy(ex.step, "clone", sizeof(ex.step));
		break;
	case SB_TIMEOUT:
		ex.reason = SANDBOX_TIMEOUT;
		ex.wstatus = SIGKILL;
		break;
	default:
		if (m->stand == SB_NODE)
			ATF_REQUIRE(prov_node_argv(m->node, &m->flags, av,
			    nitems(av)) > 0);
		else {
			av[0] = "/bin/sh";
			av[1] = "-c";
			av[2] = m->stand == SB_FLOOD ? flood :
			    m->stand == SB_FORGE ? forge : "cat >/dev/null; "
			    "exit 3";
			av[3] = NULL;
		}
		ATF_REQUIRE(posix_spawn_file_actions_init(&fa) == 0);
		ATF_REQUIRE(posix_spawn_file_actions_adddup2(&fa, in, 0) == 0);
		ATF_REQUIRE(posix_spawn_file_actions_adddup2(&fa, out,
		    1) == 0);
		r = posix_spawn(&pid, av[0], &fa, NULL, (char *const *)av,
		    environ);
		ATF_REQUIRE_MSG(r == 0, "spawn %s: %s", av[0], strerror(r));
		posix_spawn_file_actions_destroy(&fa);
		/* The sandbox holds its ends now; ours must go, or the
		 * runner would never see EOF (the launcher does the same). */
		close(in);
		close(out);
		in = out = -1;
		while (waitpid(pid, &st, 0) == -1)
			ATF_REQUIRE(errno == EINTR);
		ex.reason = WIFEXITED(st) ? SANDBOX_EXITED : SANDBOX_SIGNALED;
		ex.wstatus = st;
		break;
	}
	if (in != -1)
		close(in);
	if (out != -1)
		close(out);
	mon_send(m, IMSG_PR_EXITED, tag, -1, &ex, sizeof(ex));
}

/*
 * Serve one job until its DONE: collect its blob chunks and providers,
 * and answer its sandbox requests (SPAWN_STDOUT then SPAWN) as m->stand
 * says.
 */
static void
serve_job(struct mon *m, uint32_t job, struct reply *rp)
{
	struct imsg	 imsg;
	struct pr_spawn	 sp, sp_out;
	struct pr_arm	 arm;
	int		 out = -1, in, pout;
	size_t		 len;

	memset(rp, 0, sizeof(*rp));
	for (;;) {
		mon_recv(m, &imsg);
		if (mon_pool_msg(m, &imsg)) {
			imsg_free(&imsg);
			continue;
		}
		ATF_REQUIRE_EQ_MSG(imsg_get_id(&imsg), job, "message type %u "
		    "for job %u, expected job %u", imsg_get_type(&imsg),
		    imsg_get_id(&imsg), job);
		switch (imsg_get_type(&imsg)) {
		case IMSG_PR_BLOB:
			len = imsg_get_len(&imsg);
			ATF_REQUIRE(len > 0 && len <= PR_CHUNK);
			rp->blob = xrecallocarray(rp->blob, rp->bloblen,
			    rp->bloblen + len, 1);
			memcpy(rp->blob + rp->bloblen, imsg.data, len);
			rp->bloblen += len;
			break;
		case IMSG_PR_PROVIDER:
			ATF_REQUIRE(imsg_get_data(&imsg, &rp->prov,
			    sizeof(rp->prov)) == 0);
			ATF_CHECK_EQ(rp->prov.blob_len, rp->bloblen);
			rp->nprov++;
			break;
		case IMSG_PR_SPAWN_STDOUT:
			ATF_REQUIRE(out == -1);
			ATF_REQUIRE(imsg_get_data(&imsg, &sp_out,
			    sizeof(sp_out)) == 0);
			ATF_REQUIRE((out = imsg_get_fd(&imsg)) != -1);
			break;
		case IMSG_PR_SPAWN:
			ATF_REQUIRE_MSG(out != -1, "SPAWN before SPAWN_STDOUT");
			ATF_REQUIRE(imsg_get_data(&imsg, &sp, sizeof(sp)) == 0);
			ATF_CHECK_EQ(sp.tag, sp_out.tag);
			ATF_CHECK(sp.tag != 0);
			ATF_CHECK(sp.timeout_ms > 0);
			ATF_REQUIRE((in = imsg_get_fd(&imsg)) != -1);
			stand_in(m, sp.tag, in, out);
			out = -1;
			break;
		case IMSG_PR_ARM:
			ATF_REQUIRE(imsg_get_data(&imsg, &arm,
			    sizeof(arm)) == 0);
			ATF_CHECK(arm.timeout_ms > 0);
			m->arm_timeout = arm.timeout_ms;
			m->arm_tag = arm.tag;
			mon_pool_take(m, arm.tag, &in, &pout);
			m->arms++;
			stand_in(m, arm.tag, in, pout);
			break;
		case IMSG_PR_DONE:
			ATF_REQUIRE(imsg_get_data(&imsg, &rp->done,
			    sizeof(rp->done)) == 0);
			ATF_CHECK(memchr(rp->done.msg, '\0',
			    sizeof(rp->done.msg)) != NULL);
			imsg_free(&imsg);
			ATF_CHECK(out == -1);
			return;
		default:
			atf_tc_fail("unexpected message type %u",
			    imsg_get_type(&imsg));
		}
		imsg_free(&imsg);
	}
}

static void
check_done(const struct reply *rp, enum prov_code code, const char *want)
{
	ATF_CHECK_STREQ_MSG(prov_code_name((enum prov_code)rp->done.code),
	    prov_code_name(code), "DONE: %s", rp->done.msg);
	if (want != NULL)
		ATF_CHECK_MSG(strstr(rp->done.msg, want) != NULL,
		    "DONE message \"%s\" lacks \"%s\"", rp->done.msg, want);
}

static void
load(const atf_tc_t *tc, struct mon *m, uint32_t job, uint32_t timeout,
    struct reply *rp)
{
	struct pr_load	 pl;

	memset(&pl, 0, sizeof(pl));
	pl.now_ms = NOW_MS;
	pl.timeout_ms = timeout;
	pl.max_output = PROV_OUTPUT_DEFAULT;
	mon_send(m, IMSG_PR_LOAD, job, bundle_dir(tc), &pl, sizeof(pl));
	serve_job(m, job, rp);
}

/* Load the example and keep what was issued. */
static void
load_example(const atf_tc_t *tc, struct mon *m, struct reply *rp)
{
	enum stand	 saved = m->stand;

	m->stand = SB_NODE;
	load(tc, m, 1, 0, rp);
	m->stand = saved;
	check_done(rp, PROV_OK, NULL);
	ATF_REQUIRE_EQ_MSG(rp->done.count, 1, "%s", rp->done.msg);
	ATF_REQUIRE_EQ(rp->nprov, 1);
}

/* A descriptor to read records from: a pipe, or a file. */
static int
records_fd(const char *text, int file)
{
	int	 p[2], fd;

	if (file) {
		ATF_REQUIRE((fd = memfd_create("records", MFD_CLOEXEC)) != -1);
		ATF_REQUIRE_EQ(write(fd, text, strlen(text)),
		    (ssize_t)strlen(text));
		ATF_REQUIRE(lseek(fd, 0, SEEK_SET) == 0);
		return fd;
	}
	ATF_REQUIRE(pipe2(p, O_CLOEXEC) == 0);
	ATF_REQUIRE_EQ(write(p[1], text, strlen(text)),
	    (ssize_t)strlen(text));
	close(p[1]);
	return p[0];
}

struct invoke {
	const unsigned char	*blob;
	size_t			 bloblen;
	const char		*records;
	uint32_t		 max_records;
	uint32_t		 max_output;
	uint32_t		 timeout_ms;
	int			 files;		/* memfds, not pipes */
};

/* OUTPUT, the blob, INVOKE; returns the result descriptor's read side. */
static int
invoke_send(struct mon *m, uint32_t job, const struct reply *issued,
    const struct invoke *iv)
{
	struct pr_invoke	 inv;
	struct pr_job		 pj;
	size_t			 off, n;
	int			 p[2], rfd, wfd;

	if (iv->files) {
		ATF_REQUIRE((wfd = memfd_create("result", MFD_CLOEXEC)) != -1);
		ATF_REQUIRE((rfd = dup(wfd)) != -1);
	} else {
		ATF_REQUIRE(pipe2(p, O_CLOEXEC) == 0);
		rfd = p[0];
		wfd = p[1];
	}
	pj.job = job;
	mon_send(m, IMSG_PR_OUTPUT, job, wfd, &pj, sizeof(pj));
	for (off = 0; off < iv->bloblen; off += n) {
		n = iv->bloblen - off > PR_CHUNK ? PR_CHUNK :
		    iv->bloblen - off;
		mon_send(m, IMSG_PR_BLOB, job, -1, iv->blob + off, n);
	}
	memset(&inv, 0, sizeof(inv));
	inv.blob_len = (uint32_t)iv->bloblen;
	strlcpy(inv.id, issued->prov.id, sizeof(inv.id));
	strlcpy(inv.version, issued->prov.version, sizeof(inv.version));
	strlcpy(inv.code_digest, issued->prov.code_digest,
	    sizeof(inv.code_digest));
	strlcpy(inv.source_digest, issued->prov.source_digest,
	    sizeof(inv.source_digest));
	inv.clock_ms = NOW_MS;
	inv.timeout_ms = iv->timeout_ms;
	inv.max_records = iv->max_records;
	inv.max_output = iv->max_output;
	mon_send(m, IMSG_PR_INVOKE, job, records_fd(iv->records, iv->files),
	    &inv, sizeof(inv));
	return rfd;
}

/* Everything written to the result descriptor (it is closed by then). */
static char *
result_text(int fd, int file, size_t *lenp)
{
	unsigned char	*buf;

	if (file)
		ATF_REQUIRE(lseek(fd, 0, SEEK_SET) == 0);
	ATF_REQUIRE(read_bounded(fd, 1 << 20, &buf, lenp) == 0);
	close(fd);
	buf = xrecallocarray(buf, *lenp, *lenp + 1, 1);
	return (char *)buf;
}

static struct invoke
invoke_of(const struct reply *issued)
{
	struct invoke	 iv;

	memset(&iv, 0, sizeof(iv));
	iv.blob = issued->blob;
	iv.bloblen = issued->bloblen;
	iv.records = RECORDS;
	return iv;
}

/* The invoke's line: the sealed section, the whole result beside it. */
static char *
expected_result_m(const struct reply *issued, const char *records,
    const char *metrics)
{
	struct json_value	*v;
	struct prov_error	 err;
	char			 rd[DIGEST_STR_LEN + 1], *want;

	ATF_REQUIRE(prov_records_parse(records, strlen(records), 0, &v,
	    &err) == 0);
	ATF_REQUIRE(prov_records_digest(v, 0, rd, &err) == 0);
	json_free(v);
	xasprintf(&want, "{\"codeDigest\":\"%s\",\"metrics\":%s,"
	    "\"recordsDigest\":\"%s\",\"result\":{\"metrics\":%s},"
	    "\"sourceDigest\":\"%s\",\"version\":\"1.0.0\"}\n",
	    EXAMPLE_DIGEST, metrics, rd, metrics, issued->prov.source_digest);
	return want;
}

static char *
expected_result(const struct reply *issued, const char *records)
{
	return expected_result_m(issued, records, RESULT_METRICS);
}

/* An invoke that must be refused before any sandbox, output empty. */
static void
invoke_refused(struct mon *m, uint32_t job, const struct reply *issued,
    const struct invoke *iv, enum prov_code code, const char *want)
{
	struct reply	 rp;
	char		*out;
	size_t		 len;
	int		 rfd;

	rfd = invoke_send(m, job, issued, iv);
	serve_job(m, job, &rp);
	check_done(&rp, code, want);
	out = result_text(rfd, iv->files, &len);
	ATF_CHECK_EQ_MSG(len, 0, "a refused invoke wrote \"%s\"", out);
	free(out);
	free(rp.blob);
}

/* ---- pure pieces -------------------------------------------------------- */

ATF_TC_WITHOUT_HEAD(blob_format);
ATF_TC_BODY(blob_format, tc)
{
	struct prov_snapshot	 s, d;
	struct prov_error	 err;
	unsigned char		*b;
	size_t			 len, i;
	static const char	 m0[] = "import './b.mjs';\n", m1[] = "";

	memset(&s, 0, sizeof(s));
	s.entry = xstrdup("p/a.mjs");
	s.mods[0].path = xstrdup("p/a.mjs");
	s.mods[0].bytes = (unsigned char *)xstrdup(m0);
	s.mods[0].len = sizeof(m0) - 1;
	s.mods[1].path = xstrdup("p/b.mjs");
	s.mods[1].bytes = xmalloc(1);
	s.mods[1].len = 0;
	s.nmods = 2;
	for (i = 0; i < s.nmods; i++)
		digest_sha256_hex(s.mods[i].bytes, s.mods[i].len,
		    s.mods[i].sha256);
	ATF_REQUIRE(prov_code_digest(s.mods, 2, s.code_digest) == 0);
	ATF_REQUIRE(prov_blob_encode(&s, &b, &len) == 0);
	ATF_CHECK_EQ(len, 8 + 4 + 4 + 7 + 2 * (4 + 7 + 4) + sizeof(m0) - 1 +
	    sizeof(m1) - 1);
	ATF_CHECK(memcmp(b, "sbxblob1\0\0\0\2\0\0\0\7p/a.mjs", 23) == 0);

	ATF_REQUIRE_MSG(prov_blob_decode(b, len, &d, &err) == 0, "%s",
	    err.msg);
	ATF_CHECK_STREQ(d.entry, "p/a.mjs");
	ATF_REQUIRE_EQ(d.nmods, 2);
	ATF_CHECK_EQ(d.mods[1].len, 0);
	ATF_CHECK(memcmp(d.mods[0].bytes, m0, sizeof(m0) - 1) == 0);
	ATF_CHECK_MSG(prov_snapshot_verify(&d, s.code_digest, &err) == 0,
	    "%s", err.msg);
	prov_snapshot_free(&d);

	/* Every truncation and one trailing byte refuse. */
	for (i = 0; i < len; i++)
		TP_CHECK_ERR(prov_blob_decode(b, i, &d, &err), err,
		    PROV_ATTESTATION_MISMATCH, "snapshot blob");
	b = xrecallocarray(b, len, len + 1, 1);
	TP_CHECK_ERR(prov_blob_decode(b, len + 1, &d, &err), err,
	    PROV_ATTESTATION_MISMATCH, "1 bytes after the last module");
	/* Bad magic, zero modules, an entry that is no module. */
	b[0] = 'X';
	TP_CHECK_ERR(prov_blob_decode(b, len, &d, &err), err,
	    PROV_ATTESTATION_MISMATCH, "bad magic");
	b[0] = 's';
	b[11] = 0;
	TP_CHECK_ERR(prov_blob_decode(b, len, &d, &err), err,
	    PROV_ATTESTATION_MISMATCH, "module count must be 1 to 20");
	b[11] = 2;
	b[18] = 'c';
	TP_CHECK_ERR(prov_blob_decode(b, len, &d, &err), err,
	    PROV_ATTESTATION_MISMATCH, "entry module is not among");
	b[18] = 'a';
	/* A length that runs past the end. */
	b[12] = 0x7f;
	TP_CHECK_ERR(prov_blob_decode(b, len, &d, &err), err,
	    PROV_ATTESTATION_MISMATCH, "entry path is malformed");
	b[12] = 0;
	/* One changed module byte decodes, and fails the digest. */
	b[23 + 4 + 7 + 4 + 1] ^= 1;
	ATF_REQUIRE(prov_blob_decode(b, len, &d, &err) == 0);
	TP_CHECK_ERR(prov_snapshot_verify(&d, s.code_digest, &err), err,
	    PROV_ATTESTATION_MISMATCH, "does not match its pinned digest");
	prov_snapshot_free(&d);
	free(b);
	prov_snapshot_free(&s);
}

ATF_TC_WITHOUT_HEAD(judge);
ATF_TC_BODY(judge, tc)
{
	static const char	 nonce[] = "0123456789abcdef0123456789abcdef"
	    "0123456789abcdef0123456789abcdef";
	char			 good[256];
	struct launch_exit	 ex;
	struct prov_outcome	 o;
	struct prov_error	 err;
	struct json_value	*body;

	snprintf(good, sizeof(good), "AIWG-RESULT %s {\"ok\":true,"
	    "\"result\":{\"metrics\":{}}}\n", nonce);
	memset(&ex, 0, sizeof(ex));
	memset(&o, 0, sizeof(o));
	o.exit = &ex;
	o.timeout_ms = 250;
	o.out = good;
	o.outlen = strlen(good);
	o.max_output = PROV_OUTPUT_DEFAULT;
	o.nonce = nonce;

	ex.reason = SANDBOX_EXITED;
	ex.wstatus = 0;
	ATF_REQUIRE_MSG(prov_run_judge(&o, &body, &err) == 0, "%s", err.msg);
	ATF_CHECK(json_get(body, "result") != NULL);
	json_free(body);

	/* A deadline beats a frame printed before it. */
	ex.reason = SANDBOX_TIMEOUT;
	ex.wstatus = SIGKILL;
	TP_CHECK_ERR(prov_run_judge(&o, &body, &err), err, PROV_TIMEOUT,
	    "timed out after 250 ms");
	ex.reason = SANDBOX_SETUP_FAILED;
	ex.error = ENOSPC;
	strlcpy(ex.step, "mount\n/tmp", sizeof(ex.step));
	TP_CHECK_ERR(prov_run_judge(&o, &body, &err), err,
	    PROV_SANDBOX_UNAVAILABLE, "could not be set up: mount\\n/tmp: ");
	ex.reason = SANDBOX_KILLED;
	TP_CHECK_ERR(prov_run_judge(&o, &body, &err), err, PROV_CANCELLED,
	    "killed before it finished");
	ex.reason = SANDBOX_SIGNALED;
	ex.wstatus = SIGSYS;
	TP_CHECK_ERR(prov_run_judge(&o, &body, &err), err, PROV_REJECTED,
	    "killed by signal 31");
	ex.reason = SANDBOX_EXITED;
	ex.wstatus = 71 << 8;
	TP_CHECK_ERR(prov_run_judge(&o, &body, &err), err, PROV_REJECTED,
	    "exited with status 71 (its nonce line was malformed)");
	ex.wstatus = 9 << 8;
	TP_CHECK_ERR(prov_run_judge(&o, &body, &err), err, PROV_REJECTED,
	    "status 9 (node refused its command line)");
	/* Output past the cap refuses even with a clean exit. */
	ex.wstatus = 0;
	o.overflow = 1;
	TP_CHECK_ERR(prov_run_judge(&o, &body, &err), err, PROV_REJECTED,
	    "exceeds its output cap of 1048576 bytes");
	ex.reason = SANDBOX_TIMEOUT;
	TP_CHECK_ERR(prov_run_judge(&o, &body, &err), err, PROV_REJECTED,
	    "exceeds its output cap");
	o.overflow = 0;
	ex.reason = SANDBOX_EXITED;
	o.unfinished = 1;
	TP_CHECK_ERR(prov_run_judge(&o, &body, &err), err, PROV_REJECTED,
	    "did not end with its sandbox");
	o.unfinished = 0;
	/* A clean exit with a foreign frame is a forgery. */
	o.nonce = "1123456789abcdef0123456789abcdef"
	    "0123456789abcdef0123456789abcdef";
	TP_CHECK_ERR(prov_run_judge(&o, &body, &err), err, PROV_REJECTED,
	    "outside its result frame");
}

/* ---- the role ----------------------------------------------------------- */

ATF_TC(load_and_invoke);
ATF_TC_HEAD(load_and_invoke, tc)
{
	atf_tc_set_md_var(tc, "descr", "The runner as a role: refuses loads "
	    "before an allowlist, loads the example bundle by its directory "
	    "descriptor (inspect in a requested sandbox), issues its blob "
	    "and descriptor, and invokes it from that blob into a pipe and "
	    "into a memfd");
}
ATF_TC_BODY(load_and_invoke, tc)
{
	struct mon		 m;
	struct reply		 rp, issued;
	struct prov_snapshot	 snap;
	struct prov_error	 err;
	struct invoke		 iv;
	struct json_value	*metrics;
	char			 sd[DIGEST_STR_LEN + 1], *out, *want, *out2;
	size_t			 len;
	int			 rfd;

	mon_start(tc, &m, SB_NONE);

	/* No allowlist yet: the trust root is empty, nothing registers. */
	load(tc, &m, 1, 0, &rp);
	check_done(&rp, PROV_UNREGISTERED, "provider example.count/v1 is not "
	    "allowlisted for bundle gates-example");
	ATF_CHECK_EQ(rp.nprov, 0);
	ATF_CHECK_EQ(rp.bloblen, 0);

	good_allowlist(tc, &m);
	m.stand = SB_NODE;
	load_example(tc, &m, &issued);
	ATF_CHECK_EQ(m.spawns, 1);
	ATF_CHECK_STREQ(issued.prov.bundle_id, "gates-example");
	ATF_CHECK_STREQ(issued.prov.id, "example.count/v1");
	ATF_CHECK_STREQ(issued.prov.version, "1.0.0");
	ATF_CHECK_STREQ(issued.prov.code_digest, EXAMPLE_DIGEST);
	ATF_CHECK_STREQ(issued.prov.metrics, EXAMPLE_METRICS);
	ATF_REQUIRE(json_parse(EXAMPLE_METRICS, strlen(EXAMPLE_METRICS), NULL,
	    &metrics, NULL) == 0);
	ATF_REQUIRE(prov_source_digest("example.count/v1", "1.0.0", metrics,
	    sd, &err) == 0);
	json_free(metrics);
	ATF_CHECK_STREQ(issued.prov.source_digest, sd);
	/* The blob is the snapshot: it decodes to the pinned bytes. */
	ATF_REQUIRE_MSG(prov_blob_decode(issued.blob, issued.bloblen, &snap,
	    &err) == 0, "%s", err.msg);
	ATF_CHECK_STREQ(snap.entry, "gate-providers/example.mjs");
	ATF_CHECK_EQ(snap.nmods, 2);
	ATF_CHECK_MSG(prov_snapshot_verify(&snap, EXAMPLE_DIGEST, &err) == 0,
	    "%s", err.msg);
	prov_snapshot_free(&snap);

	/* Invoke into a pipe, records from a pipe. */
	iv = invoke_of(&issued);
	rfd = invoke_send(&m, 2, &issued, &iv);
	serve_job(&m, 2, &rp);
	check_done(&rp, PROV_OK, NULL);
	out = result_text(rfd, 0, &len);
	want = expected_result(&issued, RECORDS);
	ATF_CHECK_STREQ(out, want);
	ATF_CHECK_EQ(m.spawns, 2);

	/* The same into a memfd, records from a memfd: the same bytes. */
	iv.files = 1;
	rfd = invoke_send(&m, 3, &issued, &iv);
	serve_job(&m, 3, &rp);
	check_done(&rp, PROV_OK, NULL);
	out2 = result_text(rfd, 1, &len);
	ATF_CHECK_STREQ(out2, want);
	free(out);
	free(out2);
	free(want);

	/* A job id is free again once its DONE came. */
	iv.files = 0;
	rfd = invoke_send(&m, 2, &issued, &iv);
	serve_job(&m, 2, &rp);
	check_done(&rp, PROV_OK, NULL);
	close(rfd);
	free(issued.blob);
	mon_stop_clean(&m);
}

ATF_TC(invoke_refusals);
ATF_TC_HEAD(invoke_refusals, tc)
{
	atf_tc_set_md_var(tc, "descr", "Invokes refused before any sandbox, "
	    "with nothing written: tampered or malformed blobs "
	    "(attestation-mismatch), garbage or oversized records "
	    "(invalid-records, budget-exceeded), bad limits");
}
ATF_TC_BODY(invoke_refusals, tc)
{
	struct mon	 m;
	struct reply	 issued;
	struct invoke	 iv;
	unsigned char	*bad;

	mon_start(tc, &m, SB_NONE);
	good_allowlist(tc, &m);
	load_example(tc, &m, &issued);
	bad = xmalloc(issued.bloblen);

	/* One byte of module text changed: the re-digest refuses it. */
	memcpy(bad, issued.blob, issued.bloblen);
	bad[issued.bloblen - 3] ^= 0x20;
	iv = invoke_of(&issued);
	iv.blob = bad;
	invoke_refused(&m, 10, &issued, &iv, PROV_ATTESTATION_MISMATCH,
	    "provider example.count/v1: code does not match its pinned "
	    "digest");
	/* Cut short: the shape refuses it. */
	iv.bloblen = issued.bloblen - 1;
	invoke_refused(&m, 11, &issued, &iv, PROV_ATTESTATION_MISMATCH,
	    "snapshot blob");
	/* Nothing at all. */
	iv.bloblen = 0;
	invoke_refused(&m, 12, &issued, &iv, PROV_ATTESTATION_MISMATCH,
	    "not a snapshot");

	iv = invoke_of(&issued);
	iv.records = "[{\"slice\":\"a\",";
	invoke_refused(&m, 13, &issued, &iv, PROV_INVALID_RECORDS,
	    "records: invalid JSON");
	iv.records = "{\"slice\":\"a\"}";
	invoke_refused(&m, 14, &issued, &iv, PROV_INVALID_RECORDS,
	    "records must be an array");
	iv.records = "";
	iv.files = 1;
	invoke_refused(&m, 15, &issued, &iv, PROV_INVALID_RECORDS,
	    "records: invalid JSON");
	iv.files = 0;
	iv.records = RECORDS;
	iv.max_records = 3;
	invoke_refused(&m, 16, &issued, &iv, PROV_BUDGET_EXCEEDED,
	    "4 records exceed the limit of 3");
	/* Records are checked before the blob, as the reference does. */
	iv.blob = bad;
	iv.records = "nope";
	iv.max_records = 0;
	invoke_refused(&m, 17, &issued, &iv, PROV_INVALID_RECORDS,
	    "records: invalid JSON");
	iv.blob = issued.blob;
	iv.records = RECORDS;
	iv.timeout_ms = 600001;
	invoke_refused(&m, 18, &issued, &iv, PROV_INVALID_RECORDS,
	    "timeoutMs 600001 is out of range");
	iv.timeout_ms = 0;
	iv.max_output = 1000;
	invoke_refused(&m, 19, &issued, &iv, PROV_INVALID_RECORDS,
	    "maxOutputBytes 1000 is out of range");
	iv.max_output = 64 * 1024 * 1024 + 1;
	invoke_refused(&m, 20, &issued, &iv, PROV_INVALID_RECORDS,
	    "maxOutputBytes 67108865 is out of range");
	ATF_CHECK_EQ_MSG(m.spawns, 1, "a refused invoke reached a sandbox");
	free(bad);
	free(issued.blob);
	mon_stop_clean(&m);
}

ATF_TC(sandbox_outcomes);
ATF_TC_HEAD(sandbox_outcomes, tc)
{
	atf_tc_set_md_var(tc, "descr", "How a sandbox's end maps to the "
	    "reference's codes at invoke and at load: setup failure, "
	    "timeout, output flood, forged frame, non-zero exit");
}
ATF_TC_BODY(sandbox_outcomes, tc)
{
	static const struct {
		enum stand	 stand;
		enum prov_code	 invoke;
		enum prov_code	 load;
		const char	*want;
	} t[] = {
		{ SB_SETUP_FAILED, PROV_SANDBOX_UNAVAILABLE,
		    PROV_SANDBOX_UNAVAILABLE, "could not be set up: clone: " },
		{ SB_TIMEOUT, PROV_TIMEOUT, PROV_TIMEOUT, "timed out after" },
		{ SB_FLOOD, PROV_REJECTED, PROV_INVALID_MODULE,
		    "exceeds its output cap of 1048576 bytes" },
		{ SB_FORGE, PROV_REJECTED, PROV_INVALID_MODULE,
		    "outside its result frame" },
		{ SB_EXIT3, PROV_REJECTED, PROV_INVALID_MODULE,
		    "driver exited with status 3" },
	};
	struct mon	 m;
	struct reply	 issued, rp;
	struct invoke	 iv;
	size_t		 i;
	uint32_t	 job = 100;

	mon_start(tc, &m, SB_NONE);
	good_allowlist(tc, &m);
	load_example(tc, &m, &issued);
	for (i = 0; i < nitems(t); i++) {
		m.stand = t[i].stand;
		iv = invoke_of(&issued);
		iv.timeout_ms = 1000;
		invoke_refused(&m, job++, &issued, &iv, t[i].invoke,
		    t[i].want);
		load(tc, &m, job++, 1000, &rp);
		check_done(&rp, t[i].load, t[i].want);
		if (t[i].load == PROV_INVALID_MODULE)
			check_done(&rp, t[i].load, "provider "
			    "example.count/v1 module is invalid: ");
		ATF_CHECK_EQ(rp.nprov, 0);
		ATF_CHECK_EQ(rp.bloblen, 0);
		free(rp.blob);
	}
	ATF_CHECK_EQ(m.spawns, 1 + 2 * (int)nitems(t));
	/* After all that, a good run still works. */
	m.stand = SB_NODE;
	iv = invoke_of(&issued);
	{
		char	*out, *want;
		size_t	 len;
		int	 rfd;

		rfd = invoke_send(&m, job, &issued, &iv);
		serve_job(&m, job, &rp);
		check_done(&rp, PROV_OK, NULL);
		out = result_text(rfd, 0, &len);
		want = expected_result(&issued, RECORDS);
		ATF_CHECK_STREQ(out, want);
		free(out);
		free(want);
	}
	free(issued.blob);
	mon_stop_clean(&m);
}

ATF_TC(allowlist_updates);
ATF_TC_HEAD(allowlist_updates, tc)
{
	atf_tc_set_md_var(tc, "descr", "Only a valid allowlist replaces the "
	    "current one: bad JSON, a wrong total and an oversized file are "
	    "refused and the old one stays; a valid one pinning another "
	    "digest refuses the load (attestation-mismatch)");
}
ATF_TC_BODY(allowlist_updates, tc)
{
	static const char	 other[] = "{\"gates\":{\"providers\":[{"
	    "\"bundleId\":\"gates-example\",\"providerId\":"
	    "\"example.count/v1\",\"codeDigest\":\"sha256:0000000000000000"
	    "000000000000000000000000000000000000000000000000\","
	    "\"reviewer\":\"Example Reviewer\",\"reviewedAt\":"
	    "\"2026-08-15T00:00:00.000Z\"}]}}";
	struct mon		 m;
	struct reply		 rp;
	struct pr_done		 v;
	unsigned char		*big;

	mon_start(tc, &m, SB_NONE);
	good_allowlist(tc, &m);

	send_allowlist(&m, "{\"gates\":", 9, PR_CHUNK, 9, &v);
	ATF_CHECK_STREQ(prov_code_name((enum prov_code)v.code),
	    "invalid-allowlist");
	ATF_CHECK_MSG(strstr(v.msg, "allowlist: invalid JSON") != NULL, "%s",
	    v.msg);
	send_allowlist(&m, other, sizeof(other) - 1, PR_CHUNK, 5, &v);
	ATF_CHECK_STREQ(prov_code_name((enum prov_code)v.code),
	    "invalid-allowlist");
	ATF_CHECK_MSG(strstr(v.msg, "5 bytes announced, 243 received") !=
	    NULL, "%s", v.msg);
	big = xcalloc(1, PR_ALLOWLIST_MAX + 1);
	memset(big, ' ', PR_ALLOWLIST_MAX + 1);
	send_allowlist(&m, big, PR_ALLOWLIST_MAX + 1, PR_CHUNK,
	    PR_ALLOWLIST_MAX + 1, &v);
	ATF_CHECK_STREQ(prov_code_name((enum prov_code)v.code),
	    "invalid-allowlist");
	ATF_CHECK_MSG(strstr(v.msg, "more than 1048576 bytes") != NULL, "%s",
	    v.msg);
	free(big);

	/* The first allowlist is still the trust root. */
	load_example(tc, &m, &rp);
	free(rp.blob);

	send_allowlist(&m, other, sizeof(other) - 1, 64, sizeof(other) - 1,
	    &v);
	ATF_CHECK_EQ_MSG(v.code, 0, "%s", v.msg);
	m.stand = SB_NODE;
	load(tc, &m, 2, 0, &rp);
	check_done(&rp, PROV_ATTESTATION_MISMATCH, "the allowlist pins "
	    "sha256:0000");
	ATF_CHECK_EQ(rp.nprov, 0);
	ATF_CHECK_EQ(m.spawns, 1);
	mon_stop_clean(&m);
}

ATF_TC(concurrent_jobs);
ATF_TC_HEAD(concurrent_jobs, tc)
{
	atf_tc_set_md_var(tc, "descr", "Two invokes in flight at once, their "
	    "sandboxes answered in the opposite order: each gets its own "
	    "result, and a job whose records never end does not hold up "
	    "the others");
}
ATF_TC_BODY(concurrent_jobs, tc)
{
	static const char	 recs2[] =
	    "[{\"slice\":\"z\",\"failed\":true}]";
	struct mon		 m;
	struct reply		 issued, rp;
	struct invoke		 iv;
	struct imsg		 imsg;
	struct pr_arm		 arm;
	struct pr_invoke	 inv;
	struct pr_job		 pj;
	uint32_t		 tags[2], jobs[2] = { 31, 32 }, job;
	int			 outs[2], ins[2], rfds[2], stall[2], res[2];
	int			 got = 0, i, done = 0, k;
	char			*out, *want;
	size_t			 len;

	mon_start(tc, &m, SB_NONE);
	good_allowlist(tc, &m);
	load_example(tc, &m, &issued);

	/* Job 30: records that never end (the pipe stays open). */
	ATF_REQUIRE(pipe2(res, O_CLOEXEC) == 0);
	pj.job = 30;
	mon_send(&m, IMSG_PR_OUTPUT, 30, res[1], &pj, sizeof(pj));
	mon_send(&m, IMSG_PR_BLOB, 30, -1, issued.blob, issued.bloblen);
	memset(&inv, 0, sizeof(inv));
	inv.blob_len = (uint32_t)issued.bloblen;
	strlcpy(inv.id, issued.prov.id, sizeof(inv.id));
	strlcpy(inv.version, issued.prov.version, sizeof(inv.version));
	strlcpy(inv.code_digest, issued.prov.code_digest,
	    sizeof(inv.code_digest));
	strlcpy(inv.source_digest, issued.prov.source_digest,
	    sizeof(inv.source_digest));
	inv.clock_ms = NOW_MS;
	inv.timeout_ms = 30000;
	ATF_REQUIRE(pipe2(stall, O_CLOEXEC) == 0);
	mon_send(&m, IMSG_PR_INVOKE, 30, stall[0], &inv, sizeof(inv));

	iv = invoke_of(&issued);
	rfds[0] = invoke_send(&m, jobs[0], &issued, &iv);
	iv.records = recs2;
	rfds[1] = invoke_send(&m, jobs[1], &issued, &iv);
	/*
	 * Both take a sandbox before either is answered: each its own,
	 * reserved as the job started (it boots while the job reads its
	 * records) and armed once the request is ready.
	 */
	while (got < 2) {
		mon_recv(&m, &imsg);
		if (mon_pool_msg(&m, &imsg)) {
			imsg_free(&imsg);
			continue;
		}
		job = imsg_get_id(&imsg);
		ATF_REQUIRE(job == jobs[0] || job == jobs[1]);
		ATF_REQUIRE_EQ(imsg_get_type(&imsg), IMSG_PR_ARM);
		i = job == jobs[0] ? 0 : 1;
		ATF_REQUIRE(imsg_get_data(&imsg, &arm, sizeof(arm)) == 0);
		tags[i] = arm.tag;
		mon_pool_take(&m, arm.tag, &ins[i], &outs[i]);
		imsg_free(&imsg);
		got++;
	}
	/* Job 30's, reserved, still waits for its records. */
	ATF_CHECK_EQ(m.npool, 1);
	ATF_CHECK(tags[0] != tags[1]);
	m.stand = SB_NODE;
	stand_in(&m, tags[1], ins[1], outs[1]);
	stand_in(&m, tags[0], ins[0], outs[0]);
	while (done < 2) {
		mon_recv(&m, &imsg);
		ATF_REQUIRE_EQ(imsg_get_type(&imsg), IMSG_PR_DONE);
		ATF_REQUIRE(imsg_get_data(&imsg, &rp.done,
		    sizeof(rp.done)) == 0);
		ATF_CHECK_EQ_MSG(rp.done.code, 0, "%s", rp.done.msg);
		imsg_free(&imsg);
		done++;
	}
	for (k = 0; k < 2; k++) {
		out = result_text(rfds[k], 0, &len);
		/* recs2 is slice z: one record, failed. */
		want = k == 0 ? expected_result(&issued, RECORDS) :
		    expected_result_m(&issued, recs2, "{\"failures\":"
		    "{\"bySlice\":{\"z\":{\"events\":1,\"n\":1}},"
		    "\"pooled\":{\"events\":1,\"n\":1}}}");
		ATF_CHECK_STREQ(out, want);
		free(out);
		free(want);
	}
	/* The stalled job ends once its records do: garbage, refused;
	 * its reserved sandbox sees its stdin close, never a request. */
	ATF_REQUIRE_EQ(write(stall[1], "x", 1), 1);
	close(stall[1]);
	serve_job(&m, 30, &rp);
	check_done(&rp, PROV_INVALID_RECORDS, "records: invalid JSON");
	ATF_REQUIRE_EQ(m.npool, 1);
	{
		char	 c;

		ATF_CHECK_EQ_MSG(read(m.pool[0].in, &c, 1), 0, "a refused "
		    "job's reserved sandbox got bytes or an open stdin");
		close(m.pool[0].in);
		close(m.pool[0].out);
		m.npool = 0;
	}
	out = result_text(res[0], 0, &len);
	ATF_CHECK_EQ(len, 0);
	free(out);
	free(issued.blob);
	mon_stop_clean(&m);
}

ATF_TC(under_its_filter);
ATF_TC_HEAD(under_its_filter, tc)
{
	atf_tc_set_md_var(tc, "descr", "The role runs with its seccomp "
	    "filter and no_new_privs in force, in an empty root");
}
ATF_TC_BODY(under_its_filter, tc)
{
	struct mon	 m;
	struct reply	 rp;
	char		 path[64], line[256];
	FILE		*f;
	int		 seccomp = -1, nnp = -1;

	mon_start(tc, &m, SB_NONE);
	/* A round trip: READY came after the policy was applied. */
	load(tc, &m, 1, 0, &rp);
	check_done(&rp, PROV_UNREGISTERED, NULL);
	snprintf(path, sizeof(path), "/proc/%d/status", (int)m.pid);
	ATF_REQUIRE((f = fopen(path, "r")) != NULL);
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, "Seccomp:", 8) == 0)
			seccomp = atoi(line + 8);
		if (strncmp(line, "NoNewPrivs:", 11) == 0)
			nnp = atoi(line + 11);
	}
	fclose(f);
	ATF_CHECK_EQ(seccomp, 2);
	ATF_CHECK_EQ(nnp, 1);
	snprintf(path, sizeof(path), "/proc/%d/root/etc", (int)m.pid);
	ATF_CHECK_MSG(access(path, F_OK) == -1, "the runner sees /etc");
	mon_stop_clean(&m);
}

/* A copy of the example bundle under dir, with manifest text m. */
static void
make_bundle(const atf_tc_t *tc, const char *dir, const char *m)
{
	static const char *const files[] = {
		"gate-providers/example.mjs", "gate-providers/helper.mjs",
		"gate-providers/example-review.json"
	};
	unsigned char	*buf;
	size_t		 len, i;
	char		 path[PATH_MAX];

	for (i = 0; i < nitems(files); i++) {
		read_fixture(tc, files[i], &buf, &len);
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		tp_write(path, buf, len);
		free(buf);
	}
	snprintf(path, sizeof(path), "%s/manifest.json", dir);
	tp_writes(path, m);
}

static void
load_dir(struct mon *m, uint32_t job, int fd, int64_t now, uint32_t timeout,
    uint32_t max_output, struct reply *rp)
{
	struct pr_load	 pl;

	memset(&pl, 0, sizeof(pl));
	pl.now_ms = now;
	pl.timeout_ms = timeout;
	pl.max_output = max_output;
	mon_send(m, IMSG_PR_LOAD, job, fd, &pl, sizeof(pl));
	serve_job(m, job, rp);
	ATF_CHECK_EQ(rp->nprov, 0);
	ATF_CHECK_EQ(rp->bloblen, 0);
	free(rp->blob);
}

#define ENTRY(id, mod)	"{\"description\":\"d\",\"id\":\"" id "\"," \
			"\"module\":\"" mod "\",\"reviewFile\":" \
			"\"gate-providers/example-review.json\"," \
			"\"version\":\"1.0.0\"}"

ATF_TC(load_refusals);
ATF_TC_HEAD(load_refusals, tc)
{
	atf_tc_set_md_var(tc, "descr", "Loads refused in the reference's "
	    "order -- bundle root, manifest, clock and limits, then per "
	    "entry -- and a load whose second provider fails inspection "
	    "issues nothing, not even its first");
}
ATF_TC_BODY(load_refusals, tc)
{
	static const char	 two_allowed[] = "{\"gates\":{\"providers\":["
	    "{\"bundleId\":\"gates-example\",\"providerId\":"
	    "\"example.count/v1\",\"codeDigest\":\"" EXAMPLE_DIGEST "\","
	    "\"reviewer\":\"Example Reviewer\",\"reviewedAt\":"
	    "\"2026-08-15T00:00:00.000Z\"},"
	    "{\"bundleId\":\"gates-example\",\"providerId\":"
	    "\"example.other/v1\",\"codeDigest\":\"" EXAMPLE_DIGEST "\","
	    "\"reviewer\":\"Example Reviewer\",\"reviewedAt\":"
	    "\"2026-08-15T00:00:00.000Z\"}]}}";
	struct mon	 m;
	struct reply	 rp;
	struct pr_done	 v;
	int		 p[2];

	make_bundle(tc, "none", "{\"id\":\"gates-example\"}");
	make_bundle(tc, "broken", "{\"id\":\"gates-example\",");
	make_bundle(tc, "dup", "{\"id\":\"gates-example\",\"gateProviders\":["
	    ENTRY("example.count/v1", "gate-providers/example.mjs") ","
	    ENTRY("example.count/v1", "gate-providers/helper.mjs") "]}");
	make_bundle(tc, "two", "{\"id\":\"gates-example\",\"gateProviders\":["
	    ENTRY("example.count/v1", "gate-providers/example.mjs") ","
	    ENTRY("example.other/v1", "gate-providers/helper.mjs") "]}");
	make_bundle(tc, "edited", "{\"id\":\"gates-example\","
	    "\"gateProviders\":[" ENTRY("example.count/v1",
	    "gate-providers/example.mjs") "]}");
	tp_writes("edited/gate-providers/helper.mjs", "// edited\n");

	mon_start(tc, &m, SB_NONE);
	good_allowlist(tc, &m);
	ATF_REQUIRE(pipe2(p, O_CLOEXEC) == 0);
	load_dir(&m, 1, p[0], NOW_MS, 0, 0, &rp);
	check_done(&rp, PROV_PATH_ESCAPE, "bundle root is unavailable");
	close(p[1]);
	load_dir(&m, 2, tp_opendir("none"), NOW_MS, 0, 0, &rp);
	check_done(&rp, PROV_OK, NULL);
	ATF_CHECK_EQ(rp.done.count, 0);
	load_dir(&m, 3, tp_opendir("broken"), NOW_MS, 0, 0, &rp);
	check_done(&rp, PROV_INVALID_MODULE, "manifest.json: invalid JSON");
	load_dir(&m, 4, tp_opendir("dup"), NOW_MS, 0, 0, &rp);
	check_done(&rp, PROV_DUPLICATE, "declared twice");
	/* The manifest comes before the limits; the limits before any
	 * entry is looked at. */
	load_dir(&m, 5, tp_opendir("broken"), NOW_MS, 600001, 0, &rp);
	check_done(&rp, PROV_INVALID_MODULE, "manifest.json");
	load_dir(&m, 6, tp_opendir("edited"), 8640000000000001LL, 0, 0, &rp);
	check_done(&rp, PROV_INVALID_RECORDS, "now (8640000000000001 ms) is "
	    "not a valid time");
	load_dir(&m, 7, tp_opendir("edited"), NOW_MS, 600001, 0, &rp);
	check_done(&rp, PROV_INVALID_RECORDS, "timeoutMs 600001 is out of "
	    "range");
	load_dir(&m, 8, tp_opendir("edited"), NOW_MS, 0, 1000, &rp);
	check_done(&rp, PROV_INVALID_RECORDS, "maxOutputBytes 1000 is out "
	    "of range");
	/* Per entry: the edit moves the digest off the review's. */
	load_dir(&m, 9, tp_opendir("edited"), NOW_MS, 0, 0, &rp);
	check_done(&rp, PROV_ATTESTATION_MISMATCH, "the in-bundle review "
	    "covers " EXAMPLE_DIGEST);
	/* A review dated after the load's clock. */
	load_dir(&m, 10, bundle_dir(tc), NOW_MS - 30LL * 86400000, 0, 0, &rp);
	check_done(&rp, PROV_MISSING_ATTESTATION, "is in the future");
	ATF_CHECK_EQ(m.spawns, 0);

	/* Two providers: the first passes, the second does not inspect. */
	send_allowlist(&m, two_allowed, sizeof(two_allowed) - 1, 100,
	    sizeof(two_allowed) - 1, &v);
	ATF_CHECK_EQ_MSG(v.code, 0, "%s", v.msg);
	m.stand = SB_NODE;
	load_dir(&m, 11, tp_opendir("two"), NOW_MS, 0, 0, &rp);
	check_done(&rp, PROV_INVALID_MODULE, "provider example.other/v1 "
	    "module is invalid: ");
	ATF_CHECK_EQ(m.spawns, 2);
	mon_stop_clean(&m);
}

/* ---- the closed protocol ------------------------------------------------ */

enum violation {
	V_UNKNOWN_TYPE,
	V_LAUNCHER_TYPE,
	V_LOAD_NO_FD,
	V_ALLOWLIST_FD,
	V_ALLOWLIST_BIG,
	V_END_SIZE,
	V_EXITED_UNKNOWN,
	V_BLOB_NO_JOB,
	V_INVOKE_NO_OUTPUT,
	V_INVOKE_BLOB_LEN,
	V_INVOKE_NO_FD,
	V_INVOKE_STRINGS,
	V_OUTPUT_READONLY,
	V_JOB_REUSED,
	V_SPAWN_TO_RUNNER,
	V_POOL_BIG,
	V_POOL_SIZE,
	V_ARM_TO_RUNNER,
	V_END
};

static void
violate(struct mon *m, enum violation v)
{
	struct pr_allowlist_end	 end = { 0 };
	struct pr_invoke	 inv;
	struct pr_load		 pl;
	struct pr_job		 pj;
	struct launch_exit	 ex;
	static char		 big[PR_CHUNK + 1];
	int			 p[2];

	memset(&inv, 0, sizeof(inv));
	memset(&pl, 0, sizeof(pl));
	memset(&ex, 0, sizeof(ex));
	ATF_REQUIRE(pipe2(p, O_CLOEXEC) == 0);
	pj.job = 5;
	switch (v) {
	case V_UNKNOWN_TYPE:
		mon_send(m, 999, 0, -1, NULL, 0);
		break;
	case V_LAUNCHER_TYPE:
		mon_send(m, IMSG_LAUNCH_START, 0, -1, &end, sizeof(end));
		break;
	case V_LOAD_NO_FD:
		mon_send(m, IMSG_PR_LOAD, 5, -1, &pl, sizeof(pl));
		break;
	case V_ALLOWLIST_FD:
		mon_send(m, IMSG_PR_ALLOWLIST, 0, dup(p[0]), "{}", 2);
		break;
	case V_ALLOWLIST_BIG:
		/* One byte past a chunk: the channel cap refuses it. */
		ATF_REQUIRE(imsgbuf_set_maxsize(&m->ib, IMSG_HEADER_SIZE +
		    sizeof(big)) == 0);
		mon_send(m, IMSG_PR_ALLOWLIST, 0, -1, big, sizeof(big));
		break;
	case V_END_SIZE:
		mon_send(m, IMSG_PR_ALLOWLIST_END, 0, -1, &end, 2);
		break;
	case V_EXITED_UNKNOWN:
		ex.reason = SANDBOX_EXITED;
		mon_send(m, IMSG_PR_EXITED, 4242, -1, &ex, sizeof(ex));
		break;
	case V_BLOB_NO_JOB:
		mon_send(m, IMSG_PR_BLOB, 5, -1, "x", 1);
		break;
	case V_INVOKE_NO_OUTPUT:
		mon_send(m, IMSG_PR_INVOKE, 5, dup(p[0]), &inv, sizeof(inv));
		break;
	case V_INVOKE_BLOB_LEN:
		mon_send(m, IMSG_PR_OUTPUT, 5, dup(p[1]), &pj, sizeof(pj));
		mon_send(m, IMSG_PR_BLOB, 5, -1, "xy", 2);
		strlcpy(inv.id, "a/b", sizeof(inv.id));
		strlcpy(inv.version, "1.0.0", sizeof(inv.version));
		inv.blob_len = 3;
		mon_send(m, IMSG_PR_INVOKE, 5, dup(p[0]), &inv, sizeof(inv));
		break;
	case V_INVOKE_NO_FD:
		mon_send(m, IMSG_PR_OUTPUT, 5, dup(p[1]), &pj, sizeof(pj));
		strlcpy(inv.id, "a/b", sizeof(inv.id));
		strlcpy(inv.version, "1.0.0", sizeof(inv.version));
		mon_send(m, IMSG_PR_INVOKE, 5, -1, &inv, sizeof(inv));
		break;
	case V_INVOKE_STRINGS:
		mon_send(m, IMSG_PR_OUTPUT, 5, dup(p[1]), &pj, sizeof(pj));
		memset(inv.id, 'a', sizeof(inv.id));
		strlcpy(inv.version, "1.0.0", sizeof(inv.version));
		mon_send(m, IMSG_PR_INVOKE, 5, dup(p[0]), &inv, sizeof(inv));
		break;
	case V_OUTPUT_READONLY:
		mon_send(m, IMSG_PR_OUTPUT, 5, dup(p[0]), &pj, sizeof(pj));
		break;
	case V_JOB_REUSED:
		mon_send(m, IMSG_PR_OUTPUT, 5, dup(p[1]), &pj, sizeof(pj));
		mon_send(m, IMSG_PR_OUTPUT, 5, dup(p[1]), &pj, sizeof(pj));
		break;
	case V_SPAWN_TO_RUNNER:
		mon_send(m, IMSG_PR_SPAWN, 5, dup(p[0]), &pj, sizeof(pj));
		break;
	case V_POOL_BIG:
		pj.job = PR_POOL_MAX + 1;	/* struct pr_pool's size */
		mon_send(m, IMSG_PR_POOL, 0, -1, &pj, sizeof(pj));
		break;
	case V_POOL_SIZE:
		mon_send(m, IMSG_PR_POOL, 0, -1, &pj, 2);
		break;
	case V_ARM_TO_RUNNER:
		mon_send(m, IMSG_PR_ARM, 0, -1, &pj, sizeof(pj));
		break;
	case V_END:
		break;
	}
	close(p[0]);
	close(p[1]);
}

ATF_TC(closed_protocol);
ATF_TC_HEAD(closed_protocol, tc)
{
	atf_tc_set_md_var(tc, "descr", "A message outside the table, a wrong "
	    "size, a descriptor where none belongs or a missing one, an "
	    "unknown sandbox or job: the runner ends with fatalx");
}
ATF_TC_BODY(closed_protocol, tc)
{
	struct mon	 m;
	int		 v;

	for (v = 0; v < V_END; v++) {
		mon_start(tc, &m, SB_NONE);
		violate(&m, (enum violation)v);
		mon_expect_death(&m);
	}
}

ATF_TC(pool);
ATF_TC_HEAD(pool, tc)
{
	atf_tc_set_md_var(tc, "descr", "provider-pool: the runner asks for "
	    "pooled sandboxes with no run deadline, a run takes one with ARM "
	    "(the run's timeout) instead of a cold SPAWN and gets the same "
	    "result bytes, each one taken is replaced, a smaller pool closes "
	    "idle sandboxes' stdin, and with no pool an invoke's sandbox is "
	    "reserved as the job starts");
}
ATF_TC_BODY(pool, tc)
{
	struct mon		 m;
	struct reply		 rp, issued;
	struct invoke		 iv;
	struct pr_pool		 pp;
	struct launch_exit	 ex;
	char			*out, *want, c;
	size_t			 len;
	uint32_t		 dead_tag;
	int			 rfd, i, dead_in;

	mon_start(tc, &m, SB_NODE);
	good_allowlist(tc, &m);
	memset(&pp, 0, sizeof(pp));
	pp.size = 2;
	mon_send(&m, IMSG_PR_POOL, 0, -1, &pp, sizeof(pp));
	mon_pool_await(&m, 2);
	ATF_CHECK(m.pool[0].tag != m.pool[1].tag);

	/* The load's inspection takes one; a replacement is asked for
	 * once it has answered. */
	load_example(tc, &m, &issued);
	ATF_CHECK_EQ(m.arms, 1);
	ATF_CHECK_EQ(m.spawns, 1);
	mon_pool_await(&m, 2);

	/* An invoke: pooled, its own deadline, the cold path's bytes. */
	iv = invoke_of(&issued);
	iv.timeout_ms = 4321;
	rfd = invoke_send(&m, 2, &issued, &iv);
	serve_job(&m, 2, &rp);
	check_done(&rp, PROV_OK, NULL);
	ATF_CHECK_EQ(m.arms, 2);
	ATF_CHECK_EQ(m.arm_timeout, 4321);
	out = result_text(rfd, 0, &len);
	want = expected_result(&issued, RECORDS);
	ATF_CHECK_STREQ(out, want);
	free(out);
	mon_pool_await(&m, 2);

	/*
	 * A pooled sandbox that died idle, its EXITED not sent yet (its
	 * stdout has no writer): the next run does not take it but the
	 * other one, and it is retired (its stdin closes).
	 */
	dead_tag = m.pool[0].tag;
	dead_in = m.pool[0].in;
	close(m.pool[0].out);
	m.pool[0] = m.pool[--m.npool];
	rfd = invoke_send(&m, 4, &issued, &iv);
	serve_job(&m, 4, &rp);
	check_done(&rp, PROV_OK, NULL);
	ATF_CHECK_MSG(m.arm_tag != dead_tag, "a dead pooled sandbox was "
	    "taken");
	ATF_CHECK_EQ(m.arms, 3);
	out = result_text(rfd, 0, &len);
	ATF_CHECK_STREQ(out, want);
	free(out);
	ATF_CHECK_EQ_MSG(read(dead_in, &c, 1), 0, "a dead pooled sandbox's "
	    "stdin is still open");
	close(dead_in);
	memset(&ex, 0, sizeof(ex));
	ex.reason = SANDBOX_SIGNALED;
	ex.wstatus = SIGKILL;
	mon_send(&m, IMSG_PR_EXITED, dead_tag, -1, &ex, sizeof(ex));
	mon_pool_await(&m, 2);

	/* Pool 0: the idle ones see EOF on stdin (the driver then ends
	 * without a request), and their exits are expected. */
	pp.size = 0;
	mon_send(&m, IMSG_PR_POOL, 0, -1, &pp, sizeof(pp));
	while (m.npool > 0) {
		m.npool--;
		ATF_CHECK_EQ_MSG(read(m.pool[m.npool].in, &c, 1), 0,
		    "a retired sandbox's stdin is still open");
		close(m.pool[m.npool].in);
		close(m.pool[m.npool].out);
		memset(&ex, 0, sizeof(ex));
		ex.reason = SANDBOX_EXITED;
		ex.wstatus = 70 << 8;
		mon_send(&m, IMSG_PR_EXITED, m.pool[m.npool].tag, -1, &ex,
		    sizeof(ex));
	}

	/* Without a pool the next run's sandbox boots for it: reserved as
	 * the job starts, armed when its request is ready. */
	rfd = invoke_send(&m, 3, &issued, &iv);
	serve_job(&m, 3, &rp);
	check_done(&rp, PROV_OK, NULL);
	ATF_CHECK_EQ(m.arms, 4);
	ATF_CHECK_EQ(m.arm_timeout, 4321);
	ATF_CHECK_EQ(m.spawns, 4);
	ATF_CHECK_EQ(m.npool, 0);
	out = result_text(rfd, 0, &len);
	ATF_CHECK_STREQ(out, want);
	free(out);
	free(want);
	for (i = 0; i < m.npool; i++) {
		close(m.pool[i].in);
		close(m.pool[i].out);
	}
	free(issued.blob);
	mon_stop_clean(&m);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, blob_format);
	ATF_TP_ADD_TC(tp, judge);
	ATF_TP_ADD_TC(tp, load_and_invoke);
	ATF_TP_ADD_TC(tp, invoke_refusals);
	ATF_TP_ADD_TC(tp, sandbox_outcomes);
	ATF_TP_ADD_TC(tp, allowlist_updates);
	ATF_TP_ADD_TC(tp, load_refusals);
	ATF_TP_ADD_TC(tp, concurrent_jobs);
	ATF_TP_ADD_TC(tp, under_its_filter);
	ATF_TP_ADD_TC(tp, closed_protocol);
	ATF_TP_ADD_TC(tp, pool);
	return atf_no_error();
}
