/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * digestcmd.c: "sbxctl digest records FILE|-" prints the sha256: digest of a
 * JSON document's canonical text (interop.md §P2-§P3, artifactDigest), the
 * value binding pins carry as recordsDigest; "sbxctl digest bundle DIR
 * MODULE" prints the code digest of a bundle provider (interop.md §P2),
 * the value an allowlist entry pins.  Both run locally: digesting needs
 * no monitor, so an operator can check a pin or review a bundle without
 * one, with the same snapshot code the provider runner uses.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "sbxctl.h"
#include "provider/provider.h"

const char *const cmd_digest_synopsis[] = {
	"digest records file | -",
	"digest bundle dir module",
	NULL
};

struct digest_sub {
	const char	*name;
	int		(*run)(struct sbxctl *, int, char **);
};

static int
digest_records(struct sbxctl *ctx, int argc, char **argv)
{
	struct json_error	 err;
	char			 digest[DIGEST_STR_LEN + 1], *buf, *name;
	size_t			 len;
	int			 r;

	if ((r = args_operands(ctx, "digest records", &argc, &argv)) != 0)
		return r;
	if (argc != 1)
		return out_usage(ctx, "digest records: one file expected");

	name = out_name(argv[0]);
	if (input_read(argv[0], JSON_MAX_BYTES_DEFAULT, &buf, &len) == -1) {
		r = out_error(ctx, SBXCTL_EXIT_ERROR, SBXCTL_ERR_IO, "%s: %s",
		    name, strerror(errno));
		free(name);
		return r;
	}
	if (digest_json_text(buf, len, NULL, digest, &err) == -1)
		r = out_error(ctx, SBXCTL_EXIT_ERROR, SBXCTL_ERR_INVALID_JSON,
		    "%s: %s", name, err.msg);
	else
		r = out_string(ctx, "digest", digest);
	free(buf);
	free(name);
	return r;
}

static int
digest_bundle(struct sbxctl *ctx, int argc, char **argv)
{
	struct prov_snapshot	 snap;
	struct prov_error	 err;
	char			*name;
	int			 fd, r;

	if ((r = args_operands(ctx, "digest bundle", &argc, &argv)) != 0)
		return r;
	if (argc != 2)
		return out_usage(ctx, "digest bundle: a bundle directory and "
		    "an entry module expected");

	name = out_name(argv[0]);
	/* The operator names the root; everything below it is the bundle's. */
	if ((fd = open(argv[0], O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		r = out_error(ctx, SBXCTL_EXIT_ERROR, SBXCTL_ERR_IO, "%s: %s",
		    name, strerror(errno));
		free(name);
		return r;
	}
	if (prov_snapshot_take(fd, argv[1], &snap, &err) == -1)
		r = out_error(ctx, SBXCTL_EXIT_ERROR, prov_code_name(err.code),
		    "%s: %s: %s", name, prov_code_name(err.code), err.msg);
	else {
		r = out_string(ctx, "digest", snap.code_digest);
		prov_snapshot_free(&snap);
	}
	close(fd);
	free(name);
	return r;
}

static const struct digest_sub subs[] = {
	{ "records",	digest_records },
	{ "bundle",	digest_bundle },
};

int
cmd_digest(struct sbxctl *ctx, int argc, char **argv)
{
	char	*name;
	size_t	 i;
	int	 r;

	if ((r = args_operands(ctx, "digest", &argc, &argv)) != 0)
		return r;
	if (argc == 0)
		return out_usage(ctx, "digest: what to digest expected");
	for (i = 0; i < nitems(subs); i++)
		if (strcmp(subs[i].name, argv[0]) == 0)
			return subs[i].run(ctx, argc, argv);
	name = out_name(argv[0]);
	r = out_usage(ctx, "digest: unknown kind \"%s\"", name);
	free(name);
	return r;
}
