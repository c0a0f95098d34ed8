/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
/*
 * Native methods of rdma-shuffle's own class io.rdmashuffle.transport.verbs.disni.NativeExtras:
 * what the verbs transport needs from rdma-core that DiSNI 2.1 does not expose. Object ids are
 * the rdma-core pointers DiSNI's Nat* objects carry (getObjId()), as everywhere in this library.
 */
#define _GNU_SOURCE
#include "disni.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

/* DiSNI's IbvMr.IBV_ACCESS_ON_DEMAND and IbvContext.IBV_ODP_SUPPORT_READ are passed unchanged. */
_Static_assert(IBV_ACCESS_ON_DEMAND == 64, "IbvMr.IBV_ACCESS_ON_DEMAND");
_Static_assert(IBV_ODP_SUPPORT_READ == 8, "IbvContext.IBV_ODP_SUPPORT_READ");

#define EXTRAS(ret, name) \
	JNIEXPORT ret JNICALL Java_io_rdmashuffle_transport_verbs_disni_NativeExtras_##name

/*
 * Makes librdmacm look at the device list again. After a device is removed, librdmacm keeps its
 * context of that device open (and the kernel then waits forever for the removal to finish)
 * until something makes it resync its list: rdma_get_devices does, and once the process
 * destroyed every id on the removed device, librdmacm closes its context there. Returns the
 * number of devices still present, or a negative errno.
 */
EXTRAS(jint, syncDevices)(JNIEnv *env UNUSED, jclass cls UNUSED)
{
	int n = 0;
	struct ibv_context **list = rdma_get_devices(&n);

	if (list == NULL)
		return errno ? -errno : -ENODEV;
	rdma_free_devices(list);
	return n;
}

/* A non-blocking eventfd that wakes the completion queue's waiter; the fd, or a negative errno. */
EXTRAS(jint, createWakeup)(JNIEnv *env UNUSED, jclass cls UNUSED)
{
	int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* Makes the wake-up readable (any thread); 0 or a negative errno. */
EXTRAS(jint, wake)(JNIEnv *env UNUSED, jclass cls UNUSED, jint fd)
{
	uint64_t one = 1;

	if (fd < 0)
		return -EBADF;
	/* EAGAIN: the counter is at its maximum, so the fd is readable already. */
	if (write(fd, &one, sizeof one) < 0 && errno != EAGAIN)
		return -errno;
	return 0;
}

EXTRAS(jint, closeWakeup)(JNIEnv *env UNUSED, jclass cls UNUSED, jint fd)
{
	if (fd < 0)
		return -EBADF;
	return close(fd) ? -errno : 0;
}

/*
 * Blocks until the completion channel has an event (taken and acknowledged here: returns 1), the
 * wake-up was written (drained: returns 2), or timeout_ms passed (0). Both fds are non-blocking,
 * so a second waiter, or an event taken meanwhile, never blocks here past the poll. A negative
 * errno on failure.
 */
EXTRAS(jint, awaitCompletion)(JNIEnv *env UNUSED, jclass cls UNUSED, jlong channel, jlong cq_id,
			      jint wakeup_fd, jint timeout_ms)
{
	struct ibv_comp_channel *ch = disni_ptr(channel);
	struct ibv_cq *cq = disni_ptr(cq_id);
	struct pollfd fds[2];
	int n, rc = 0;

	if (ch == NULL || cq == NULL || wakeup_fd < 0)
		return -EINVAL;
	fds[0] = (struct pollfd){ .fd = ch->fd, .events = POLLIN };
	fds[1] = (struct pollfd){ .fd = wakeup_fd, .events = POLLIN };
	n = poll(fds, 2, timeout_ms < 0 ? -1 : timeout_ms);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	if (n == 0)
		return 0;
	if ((fds[0].revents | fds[1].revents) & POLLNVAL)
		return -EBADF;
	if (fds[1].revents & POLLIN) {
		uint64_t count;

		if (read(wakeup_fd, &count, sizeof count) < 0 && errno != EAGAIN)
			return -errno;
		rc = 2;
	}
	if (fds[0].revents & POLLIN) {
		struct ibv_cq *ev_cq;
		void *ev_ctx;

		if (ibv_get_cq_event(ch, &ev_cq, &ev_ctx) == 0) {
			ibv_ack_cq_events(ev_cq, 1);
			rc = 1;
		} else if (errno != EAGAIN) {
			return -errno;
		}
	}
	return rc;
}

/*
 * Destroys the queue pair of an RDMA-CM id and says whether it is gone: rdma_destroy_qp returns
 * nothing, and a queue pair whose destroy failed may still write into the targets of its READs.
 * The same steps as rdma_destroy_qp for a queue pair made with caller-supplied completion queues
 * (as every one of ours is). 0, or a negative errno (the queue pair then still exists).
 */
EXTRAS(jint, destroyQp)(JNIEnv *env UNUSED, jclass cls UNUSED, jlong cm_id)
{
	struct rdma_cm_id *id = disni_ptr(cm_id);
	int rc;

	if (id == NULL || id->qp == NULL)
		return -EINVAL;
	rc = ibv_destroy_qp(id->qp);
	if (rc)
		return rc > 0 ? -rc : rc;
	id->qp = NULL;
	return 0;
}

/*
 * Moves a queue pair to the error state: the device then completes every work request still
 * posted on it with IBV_WC_WR_FLUSH_ERR and writes nothing more for them. 0 or a negative errno.
 */
EXTRAS(jint, moveQpToError)(JNIEnv *env UNUSED, jclass cls UNUSED, jlong qp_id)
{
	struct ibv_qp *qp = disni_ptr(qp_id);
	struct ibv_qp_attr attr;
	int rc;

	if (qp == NULL)
		return -EINVAL;
	memset(&attr, 0, sizeof attr);
	attr.qp_state = IBV_QPS_ERR;
	rc = ibv_modify_qp(qp, &attr, IBV_QP_STATE);
	return rc > 0 ? -rc : rc;
}

/* The vendor id Soft-RoCE (rxe) reports (the kernel's RXE_VENDOR_ID). */
#define SOFT_ROCE_VENDOR_ID 0xFFFFFF
/* Set in odp_caps' result for a Soft-RoCE device (OdpSupport.SOFT_ROCE). */
#define CAPS_SOFT_ROCE (1LL << 62)

/*
 * On-demand paging capabilities of one device context: general_caps in bits 32..61 (the kernel
 * defines three), rc_odp_caps in the low 32, bit 62 set when the device is Soft-RoCE (whose
 * on-demand READs return wrong bytes up to at least Linux 7.3, so messages say what to do about
 * it; see OdpSupport); 0 when the device has no ODP (or the
 * query is not supported), a negative errno when the query failed otherwise.
 */
static jlong odp_caps(struct ibv_context *ctx)
{
	struct ibv_device_attr_ex attr;
	int rc;

	memset(&attr, 0, sizeof attr);
	rc = ibv_query_device_ex(ctx, NULL, &attr);
	if (rc == EOPNOTSUPP || rc == ENOSYS)
		return 0;
	if (rc)
		return -(jlong)(rc > 0 ? rc : -rc);
	if (!(attr.odp_caps.general_caps & IBV_ODP_SUPPORT))
		return 0;
	return ((jlong)(attr.odp_caps.general_caps & 0x3fffffff) << 32) |
	       (jlong)attr.odp_caps.per_transport_caps.rc_odp_caps |
	       (attr.orig_attr.vendor_id == SOFT_ROCE_VENDOR_ID ? CAPS_SOFT_ROCE : 0);
}

EXTRAS(jlong, odpCaps)(JNIEnv *env UNUSED, jclass cls UNUSED, jlong context)
{
	struct ibv_context *ctx = disni_ptr(context);

	return ctx == NULL ? -EINVAL : odp_caps(ctx);
}

/* "right: ...", "wrong: ..." or "untested: ..." from rs_odp_read_check, as a Java string. */
static jstring odp_check_text(JNIEnv *env, struct ibv_context *ctx)
{
	char why[256], text[300];
	int rc = rs_odp_read_check(ctx, why, sizeof why);

	snprintf(text, sizeof text, "%s: %s", rc == 0 ? "right" : rc == 1 ? "wrong" : "untested",
		 why);
	return (*env)->NewStringUTF(env, text);
}

/*
 * Whether the device of a context answers READs of on-demand memory with the bytes asked for
 * (rdmashuffle_odp_check.c): "right: ...", "wrong: ..." or "untested: ..." (the check could not
 * run), each with what was seen.
 */
EXTRAS(jstring, odpReadCheck)(JNIEnv *env, jclass cls UNUSED, jlong context)
{
	struct ibv_context *ctx = disni_ptr(context);

	if (ctx == NULL) {
		disni_throw_errno(env, EINVAL, "odpReadCheck without a device context");
		return NULL;
	}
	return odp_check_text(env, ctx);
}

/*
 * For the doctor, without RDMA-CM: "name=caps" (caps as odpCaps returns them) for every device
 * the process can open, with check and where the caps say RC READ on demand ";" and what
 * odpReadCheck says of the device, as a Java String[]; an empty array when there is none (or the kernel has
 * no RDMA support); null (with an IOException pending) when the device list can't be read.
 */
EXTRAS(jobjectArray, deviceOdpCaps)(JNIEnv *env, jclass cls UNUSED, jboolean check)
{
	struct ibv_device **list;
	jobjectArray out;
	jclass string_class;
	int n = 0;

	list = ibv_get_device_list(&n);
	string_class = (*env)->FindClass(env, "java/lang/String");
	if (string_class == NULL)
		return NULL;
	if (list == NULL) {
		/* ENOSYS: the kernel has no RDMA support at all, so there is no device */
		if (errno == ENOSYS)
			return (*env)->NewObjectArray(env, 0, string_class, NULL);
		disni_throw_errno(env, errno, "ibv_get_device_list");
		return NULL;
	}
	out = (*env)->NewObjectArray(env, n, string_class, NULL);
	for (int i = 0; out != NULL && i < n; i++) {
		struct ibv_context *ctx = ibv_open_device(list[i]);
		long long caps = ctx == NULL ? -(long long)errno : (long long)odp_caps(ctx);
		char text[512], why[256] = "";
		const char *word = NULL;
		jstring s;

		/* with RC READ on demand: whether its READs return the right bytes, after a ";" as
		 * odpReadCheck says it */
		if (check && ctx != NULL && caps > 0 && (caps & (1LL << 32)) &&
		    (caps & IBV_ODP_SUPPORT_READ)) {
			int rc = rs_odp_read_check(ctx, why, sizeof why);

			word = rc == 0 ? "right" : rc == 1 ? "wrong" : "untested";
		}
		snprintf(text, sizeof text, "%s=%lld%s%s%s%s", ibv_get_device_name(list[i]), caps,
			 word ? ";" : "", word ? word : "", word ? ": " : "", why);
		if (ctx != NULL)
			ibv_close_device(ctx);
		s = (*env)->NewStringUTF(env, text);
		if (s == NULL) {
			out = NULL;
			break;
		}
		(*env)->SetObjectArrayElement(env, out, i, s);
		(*env)->DeleteLocalRef(env, s);
	}
	ibv_free_device_list(list);
	return out;
}

/*
 * Asks the device to fault in [addr, addr + length) of an on-demand memory region ahead of the
 * READs that will touch it (IBV_ADVISE_MR_ADVICE_PREFETCH, best effort, asynchronous unless
 * wait is set). 0, or a negative errno (-EOPNOTSUPP where the device can't).
 */
EXTRAS(jint, prefetch)(JNIEnv *env UNUSED, jclass cls UNUSED, jlong mr_id, jlong addr,
		       jint length, jboolean wait)
{
	struct ibv_mr *mr = disni_ptr(mr_id);
	struct ibv_sge sge;
	int rc;

	if (mr == NULL || length <= 0)
		return -EINVAL;
	sge.addr = (uint64_t)addr;
	sge.length = (uint32_t)length;
	sge.lkey = mr->lkey;
	rc = ibv_advise_mr(mr->pd, IBV_ADVISE_MR_ADVICE_PREFETCH,
			   wait ? IBV_ADVISE_MR_FLAG_FLUSH : 0, &sge, 1);
	return rc > 0 ? -rc : rc;
}

/*
 * The descriptor of an open java.nio FileChannel: its FileDescriptor's fd, read straight from the
 * fields (sun.nio.ch.FileChannelImpl.fd, java.io.FileDescriptor.fd), which JNI may read although
 * the module system hides them from Java code. -1 (with an exception pending) when absent.
 */
static int channel_fd(JNIEnv *env, jobject channel)
{
	jclass cls = (*env)->GetObjectClass(env, channel);
	jfieldID fd_field = (*env)->GetFieldID(env, cls, "fd", "Ljava/io/FileDescriptor;");
	jobject fd_object;
	jclass fd_class;
	jfieldID int_field;

	if (fd_field == NULL)
		return -1;
	fd_object = (*env)->GetObjectField(env, channel, fd_field);
	if (fd_object == NULL) {
		disni_throw_errno(env, EBADF, "FileChannel without a descriptor");
		return -1;
	}
	fd_class = (*env)->GetObjectClass(env, fd_object);
	int_field = (*env)->GetFieldID(env, fd_class, "fd", "I");
	if (int_field == NULL)
		return -1;
	return (*env)->GetIntField(env, fd_object, int_field);
}

/*
 * Maps [offset, offset + length) of a file channel open for reading only as a read-only private
 * mapping (PROT_READ, MAP_PRIVATE), which java.nio can't make (its PRIVATE mode needs a channel
 * open for writing), and returns it as a direct ByteBuffer; throws IOException on failure. Such a
 * mapping can be pinned where a read-only shared one can't: a kernel whose ib_umem_get pins
 * read-only registrations with FOLL_WRITE | FOLL_FORCE (Linux 6.1) refuses a shared mapping of a
 * descriptor not open for writing (EFAULT), and breaks copy-on-write in a private one instead: the
 * pages pinned are private copies, and the file is never written. Unmapped with unmapFile.
 */
EXTRAS(jobject, mapPrivateReadOnly)(JNIEnv *env, jclass cls UNUSED, jobject channel, jlong offset,
				    jint length)
{
	int fd;
	void *addr;
	jobject buffer;

	if (channel == NULL || offset < 0 || length <= 0) {
		disni_throw_errno(env, EINVAL, "mapPrivateReadOnly(offset=%lld, length=%d)",
				  (long long)offset, (int)length);
		return NULL;
	}
	fd = channel_fd(env, channel);
	if (fd < 0) {
		if (!(*env)->ExceptionCheck(env))
			disni_throw_errno(env, EBADF, "FileChannel closed");
		return NULL;
	}
	addr = mmap(NULL, (size_t)length, PROT_READ, MAP_PRIVATE, fd, (off_t)offset);
	if (addr == MAP_FAILED) {
		disni_throw_errno(env, errno, "mmap(length=%d, offset=%lld, PROT_READ, MAP_PRIVATE)",
				  (int)length, (long long)offset);
		return NULL;
	}
	buffer = (*env)->NewDirectByteBuffer(env, addr, (jlong)length);
	if (buffer == NULL)
		munmap(addr, (size_t)length);
	return buffer;
}

/* Unmaps what mapPrivateReadOnly returned; 0 or a negative errno. */
EXTRAS(jint, unmapFile)(JNIEnv *env, jclass cls UNUSED, jobject mapping)
{
	void *addr = mapping == NULL ? NULL : (*env)->GetDirectBufferAddress(env, mapping);
	jlong length = mapping == NULL ? -1 : (*env)->GetDirectBufferCapacity(env, mapping);

	if (addr == NULL || length <= 0)
		return -EINVAL;
	return munmap(addr, (size_t)length) ? -errno : 0;
}
