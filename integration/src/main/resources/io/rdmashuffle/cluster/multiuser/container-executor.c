/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
/*
 * The cluster harness's container-executor: the setuid-root part that Hadoop's
 * LinuxContainerExecutor runs (yarn.nodemanager.linux-container-executor.path) to start
 * localizers and containers as their job's user, signal them and delete their files.
 *
 * Hadoop's own container-executor is C in Hadoop's source release, which Maven Central does not
 * have (only its Java jars); this one implements the same command line, the one
 * LinuxContainerExecutor and DefaultLinuxContainerRuntime build (PrivilegedOperation), in
 * container-executor.sh. This program only checks that its caller is the NodeManager's group,
 * becomes root for real (so bash keeps the privilege), drops the variables that would change what
 * bash or the dynamic loader run, and executes that script with the caller's arguments.
 *
 * Built by the harness at start (cc -DSCRIPT=... -DCONF=... -DNM_GROUP=...), installed root:<group>
 * mode 6050 as Hadoop's must be: only the NodeManager's group may run it.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if !defined(SCRIPT) || !defined(CONF) || !defined(NM_GROUP)
#error "build with -DSCRIPT=\"path\" -DCONF=\"path\" -DNM_GROUP=\"group\""
#endif

static int in_group(gid_t g)
{
	gid_t groups[256];
	int n = getgroups(256, groups);

	if (getgid() == g)
		return 1;
	for (int i = 0; i < n; i++)
		if (groups[i] == g)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const dropped[] = { "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "BASH_ENV",
					       "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "IFS", "CDPATH",
					       "GLOBIGNORE", NULL };
	struct group *nm = getgrnam(NM_GROUP);
	char caller[32];
	char **args;

	if (nm == NULL || !in_group(nm->gr_gid)) {
		fprintf(stderr, "container-executor: only group %s may run this\n", NM_GROUP);
		return 24; /* INVALID_CONFIG_FILE, as Hadoop's says for a bad set-up */
	}
	snprintf(caller, sizeof(caller), "%u", (unsigned)getuid());
	if (setgroups(0, NULL) != 0 || setresgid(0, 0, 0) != 0 || setresuid(0, 0, 0) != 0) {
		perror("container-executor: can't become root (is it setuid root?)");
		return 24;
	}
	for (int i = 0; dropped[i] != NULL; i++)
		unsetenv(dropped[i]);
	for (char **e = environ; e != NULL && *e != NULL;) {
		if (strncmp(*e, "BASH_FUNC_", 10) == 0) {
			char name[256];
			size_t len = strcspn(*e, "=");

			snprintf(name, sizeof(name), "%.*s", (int)len, *e);
			unsetenv(name);
			continue;
		}
		e++;
	}
	setenv("PATH", "/usr/sbin:/usr/bin:/sbin:/bin", 1);
	setenv("RS_CE_CALLER_UID", caller, 1);
	setenv("RS_CE_CONF", CONF, 1);
	args = calloc((size_t)argc + 4, sizeof(char *));
	if (args == NULL)
		return 1;
	args[0] = "bash";
	args[1] = "--norc";
	args[2] = "--noprofile";
	args[3] = SCRIPT;
	for (int i = 1; i < argc; i++)
		args[i + 3] = argv[i];
	execv("/bin/bash", args);
	perror("container-executor: exec /bin/bash");
	return 1;
}
