/*
 * preset.c - the C reader of preset files (vb_config_load): the subset of TOML
 * the presets use, with includes, for C users without Python (the bare-metal
 * example, the BSP shim): [sections], key = number | bool | "string" |
 * { value = number, ... }.  Each key goes through vb_config_set (config.c).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vboard.h"

/* ---- preset files ------------------------------------------------------- */

static char *trim(char *s)
{
	char *e;
	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

static void strip_comment(char *s)
{
	bool quoted = false;
	for (; *s; s++) {
		if (*s == '"')
			quoted = !quoted;
		else if (*s == '#' && !quoted) {
			*s = 0;
			return;
		}
	}
}

/* TOML number: decimal, 0x hex, underscores, floats; bools as 0/1. */
static int parse_number(const char *s, double *out)
{
	char buf[64], *end;
	size_t n = 0;
	if (!strcmp(s, "true")) { *out = 1; return 0; }
	if (!strcmp(s, "false")) { *out = 0; return 0; }
	for (; *s && n < sizeof(buf) - 1; s++)
		if (*s != '_')
			buf[n++] = *s;
	buf[n] = 0;
	if (n == 0)
		return -1;
	errno = 0;
	if (n > 2 && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X'))
		*out = (double)strtoull(buf, &end, 16);
	else
		*out = strtod(buf, &end);
	return (*end || errno) ? -1 : 0;
}

/* The value of "{ value = N, source = "...", ... }", or the plain value. */
static int value_of(char *v, double *out, bool *is_number)
{
	*is_number = false;
	if (*v == '"')
		return 0;                         /* strings are documentation */
	if (*v == '{') {
		char *p = strstr(v, "value");
		if (!p)
			return 0;
		p = strchr(p, '=');
		if (!p)
			return -1;
		p = trim(p + 1);
		char *e = p;
		while (*e && *e != ',' && *e != '}')
			e++;
		*e = 0;
		v = trim(p);
		if (*v == '"')
			return 0;
	}
	*is_number = true;
	return parse_number(v, out);
}

#define INCLUDE_DEPTH_MAX 4

static int load(struct vb_config *cfg, const char *path, char *err, size_t errlen, unsigned depth);

/* include = "NAME" or { value = "NAME", source = ... }: the file NAME.toml next to
 * this one, applied at this point (keys after it override it).  The string value
 * is returned in out (without quotes); 0 when the line is no include. */
static int include_name(char *v, char *out, size_t n)
{
	char *q, *e;
	if (*v == '{') {
		q = strstr(v, "value");
		if (!q || !(q = strchr(q, '=')))
			return -1;
		v = trim(q + 1);
	}
	if (*v != '"' || !(e = strchr(v + 1, '"')) || (size_t)(e - v - 1) >= n)
		return -1;
	memcpy(out, v + 1, (size_t)(e - v - 1));
	out[e - v - 1] = 0;
	return 0;
}

static int load_include(struct vb_config *cfg, const char *path, const char *name, char *err, size_t errlen,
			unsigned depth)
{
	char inc[1024];
	const char *slash = strrchr(path, '/');
	int dir = slash ? (int)(slash - path + 1) : 0;
	if (depth >= INCLUDE_DEPTH_MAX) {
		snprintf(err, errlen, "%s: include %s: more than %u levels (a loop?)", path, name, INCLUDE_DEPTH_MAX);
		return -1;
	}
	if (snprintf(inc, sizeof(inc), "%.*s%s.toml", dir, path, name) >= (int)sizeof(inc)) {
		snprintf(err, errlen, "%s: include %s: path too long", path, name);
		return -1;
	}
	return load(cfg, inc, err, errlen, depth + 1);
}

int vb_config_load(struct vb_config *cfg, const char *path, char *err, size_t errlen)
{
	return load(cfg, path, err, errlen, 0);
}

/* One pass over the file's lines; its length is the line grammar's cases, each
 * with its own error message naming the line. */
static int load(struct vb_config *cfg, const char *path, char *err, size_t errlen, unsigned depth)
{
	char line[1024], section[128] = "";
	unsigned lineno = 0;
	bool section_has_keys = false;   /* an include must come first: it is the base the keys override */
	FILE *f = fopen(path, "r");

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *s, *eq, *k, *v, key[256];
		double value;
		bool is_number;

		lineno++;
		strip_comment(line);
		s = trim(line);
		if (!*s)
			continue;
		if (*s == '[') {
			char *e = strchr(s, ']');
			if (!e || e - s - 1 >= (long)sizeof(section)) {
				snprintf(err, errlen, "%s:%u: bad section header", path, lineno);
				fclose(f);
				return -1;
			}
			*e = 0;
			snprintf(section, sizeof(section), "%s", trim(s + 1));
			section_has_keys = false;
			if (!strcmp(section, "pcie"))
				cfg->pcie.present = 1;   /* the board has the PCIe subsystem */
			if (!strcmp(section, "rtio"))
				cfg->rtio.present = 1;   /* the RTIO core exists on this board */
			continue;
		}
		eq = strchr(s, '=');
		if (!eq) {
			snprintf(err, errlen, "%s:%u: expected key = value", path, lineno);
			fclose(f);
			return -1;
		}
		*eq = 0;
		k = trim(s);
		v = trim(eq + 1);
		if (!*section && !strcmp(k, "name") && *v == '"') {
			char *e = strchr(v + 1, '"');
			if (e)
				*e = 0;
			snprintf(cfg->name, sizeof(cfg->name), "%s", v + 1);
			continue;
		}
		if (!strcmp(k, "include")) {
			char name[256];
			if (section_has_keys) {
				snprintf(err, errlen, "%s:%u: include must be the first key of [%s]", path, lineno, section);
				fclose(f);
				return -1;
			}
			if (include_name(v, name, sizeof(name)) < 0) {
				snprintf(err, errlen, "%s:%u: include must name a preset file: include = \"parts/NAME\"",
					 path, lineno);
				fclose(f);
				return -1;
			}
			if (load_include(cfg, path, name, err, errlen, depth) < 0) {
				fclose(f);
				return -1;
			}
			continue;
		}
		section_has_keys = true;
		if (value_of(v, &value, &is_number) < 0) {
			snprintf(err, errlen, "%s:%u: %s: not a number", path, lineno, k);
			fclose(f);
			return -1;
		}
		if (!is_number || !*section)
			continue;                 /* descriptions, sources, units */
		snprintf(key, sizeof(key), "%s.%s", section, k);
		if (!strncmp(section, "info", 4) || !strncmp(section, "layout", 6) || !strncmp(section, "port.", 5) ||
		    !strcmp(section, "irq") ||
		    !strncmp(section, "cpu.", 4))
			continue;                 /* read by the Python layers only */
		if (vb_config_set(cfg, key, value) < 0) {
			snprintf(err, errlen, "%s:%u: unknown or invalid key %s", path, lineno, key);
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	return 0;
}
