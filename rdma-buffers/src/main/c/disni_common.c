/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
/*
 * Shared helpers (exceptions, waiting on file descriptors) and the natives DiSNI calls once when
 * NativeDispatcher is constructed: the JNI version and the sizes of the layouts in disni.h.
 */
#define _GNU_SOURCE
#include "disni.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define MESSAGE_MAX 512

static void throw_text(JNIEnv *env, const char *class_name, const char *text)
{
	jclass cls = (*env)->FindClass(env, class_name);

	/* FindClass failing leaves its own exception (NoClassDefFoundError, OOM) pending. */
	if (cls != NULL) {
		(*env)->ThrowNew(env, cls, text);
		(*env)->DeleteLocalRef(env, cls);
	}
}

void disni_throw_errno(JNIEnv *env, int err, const char *fmt, ...)
{
	char what[MESSAGE_MAX];
	char text[MESSAGE_MAX + 128];
	char buf[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	snprintf(text, sizeof text, "%s: %s (errno %d)", what, strerror_r(err, buf, sizeof buf), err);
	throw_text(env, "java/io/IOException", text);
}

void disni_throw_msg(JNIEnv *env, const char *fmt, ...)
{
	char text[MESSAGE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	throw_text(env, "java/io/IOException", text);
}

void disni_throw_class(JNIEnv *env, const char *class_name, int err, const char *what)
{
	char text[MESSAGE_MAX];
	char buf[128];

	snprintf(text, sizeof text, "%s: %s (errno %d)", what, strerror_r(err, buf, sizeof buf), err);
	throw_text(env, class_name, text);
}

int disni_wait_readable(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n = poll(&p, 1, timeout_ms < 0 ? -1 : timeout_ms);

	if (n < 0)
		return -errno;
	if (n == 0)
		return 0;
	if (p.revents & POLLNVAL)
		return -EBADF;
	return 1;
}

int disni_set_nonblocking(int fd)
{
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm UNUSED, void *reserved UNUSED)
{
	return JNI_VERSION_1_8;
}

DISPATCHER(jint, getVersion)(JNIEnv *env UNUSED, jobject self UNUSED)
{
	return DISNI_JNI_VERSION;
}

DISPATCHER(jint, getSockAddrInSize)(JNIEnv *env UNUSED, jobject self UNUSED)
{
	return SOCKADDR_SIZE;
}

DISPATCHER(jint, getIbvRecvWRSize)(JNIEnv *env UNUSED, jobject self UNUSED)
{
	return RECV_WR_SIZE;
}

DISPATCHER(jint, getIbvSendWRSize)(JNIEnv *env UNUSED, jobject self UNUSED)
{
	return SEND_WR_SIZE;
}

DISPATCHER(jint, getIbvSgeSize)(JNIEnv *env UNUSED, jobject self UNUSED)
{
	return SGE_SIZE;
}

DISPATCHER(jint, getIbvWCSize)(JNIEnv *env UNUSED, jobject self UNUSED)
{
	return WC_SIZE;
}

DISPATCHER(jint, getRemoteAddressOffset)(JNIEnv *env UNUSED, jobject self UNUSED)
{
	return SEND_WR_REMOTE_ADDR;
}

DISPATCHER(jint, getRKeyOffset)(JNIEnv *env UNUSED, jobject self UNUSED)
{
	return SEND_WR_RKEY;
}
