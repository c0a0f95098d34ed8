/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
/*
 * com.ibm.disni.util.NativeAffinity: CPU affinity of the calling thread, as a bit mask of the
 * first 64 CPUs (DiSNI's RdmaCqProcessor pins its polling thread with it).
 */
#define _GNU_SOURCE
#include "disni.h"

#include <errno.h>
#include <sched.h>

#define MASK_CPUS 64

JNIEXPORT void JNICALL Java_com_ibm_disni_util_NativeAffinity__1setAffinity(JNIEnv *env,
									    jclass cls UNUSED,
									    jlong mask)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	for (int cpu = 0; cpu < MASK_CPUS; cpu++)
		if ((uint64_t)mask & (UINT64_C(1) << cpu))
			CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof set, &set))
		disni_throw_class(env, "java/lang/IllegalArgumentException", errno,
				  "sched_setaffinity");
}

JNIEXPORT jlong JNICALL Java_com_ibm_disni_util_NativeAffinity__1getAffinity(JNIEnv *env,
									     jclass cls UNUSED)
{
	cpu_set_t set;
	uint64_t mask = 0;

	if (sched_getaffinity(0, sizeof set, &set)) {
		disni_throw_class(env, "java/lang/IllegalStateException", errno, "sched_getaffinity");
		return 0;
	}
	for (int cpu = 0; cpu < MASK_CPUS; cpu++)
		if (CPU_ISSET(cpu, &set))
			mask |= UINT64_C(1) << cpu;
	return (jlong)mask;
}
