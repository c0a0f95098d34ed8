/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
/*
 * RDMA connection manager natives of NativeDispatcher (DiSNI's RdmaCmNat): event channels,
 * cm ids, address and route resolution, connect/accept, events, and the queue pair of an id.
 *
 * Events are acknowledged inside _getCmEvent, right after their ids are copied out: DiSNI's
 * _ackCmEvent only passes the event type, so it could not name the event to acknowledge, and an
 * unacknowledged event would make rdma_destroy_id wait forever. DiSNI reads nothing else of an
 * event (no status, no private data), so nothing is lost by acknowledging early.
 */
#define _GNU_SOURCE
#include "disni.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <rdma/rdma_cma.h>

/* DiSNI compares event types with the ordinals of RdmaCmEvent.EventType. */
_Static_assert(RDMA_CM_EVENT_ADDR_RESOLVED == 0, "RdmaCmEvent.EventType ordinal");
_Static_assert(RDMA_CM_EVENT_ROUTE_RESOLVED == 2, "RdmaCmEvent.EventType ordinal");
_Static_assert(RDMA_CM_EVENT_CONNECT_REQUEST == 4, "RdmaCmEvent.EventType ordinal");
_Static_assert(RDMA_CM_EVENT_ESTABLISHED == 9, "RdmaCmEvent.EventType ordinal");
_Static_assert(RDMA_CM_EVENT_DISCONNECTED == 10, "RdmaCmEvent.EventType ordinal");
_Static_assert(RDMA_CM_EVENT_TIMEWAIT_EXIT == 15, "RdmaCmEvent.EventType ordinal");
_Static_assert(RDMA_PS_TCP == 262, "RdmaCm.RDMA_PS_TCP");
_Static_assert(sizeof(struct sockaddr_in) <= SOCKADDR_SIZE, "sockaddr_in fits DiSNI's buffer");

/*
 * Scatter/gather entries per work request a queue pair accepts. DiSNI's createQP does not pass
 * max_send_sge/max_recv_sge, so this is fixed here (capped by the device); posting more entries
 * fails with EINVAL.
 */
#define QP_MAX_SGE 4

/* 3-bit fields of the connection parameters (retry and RNR retry counts). */
#define RETRY_MAX 7

static int read_sockaddr(jlong buf, struct sockaddr_in *out)
{
	const unsigned char *b = disni_ptr(buf);

	memset(out, 0, sizeof *out);
	if (b == NULL)
		return -EINVAL;
	out->sin_family = disni_ld16(b, SOCKADDR_FAMILY);
	memcpy(&out->sin_port, b + SOCKADDR_PORT, sizeof out->sin_port);
	memcpy(&out->sin_addr, b + SOCKADDR_ADDR, sizeof out->sin_addr);
	return out->sin_family == AF_INET ? 0 : -EAFNOSUPPORT;
}

static int write_sockaddr(const struct sockaddr *addr, jlong buf)
{
	unsigned char *b = disni_ptr(buf);
	const struct sockaddr_in *in = (const struct sockaddr_in *)addr;

	if (b == NULL || addr == NULL)
		return -EINVAL;
	if (addr->sa_family != AF_INET)
		return -EAFNOSUPPORT;
	memset(b, 0, sizeof(struct sockaddr_in));
	disni_st16(b, SOCKADDR_FAMILY, AF_INET);
	memcpy(b + SOCKADDR_PORT, &in->sin_port, sizeof in->sin_port);
	memcpy(b + SOCKADDR_ADDR, &in->sin_addr, sizeof in->sin_addr);
	return 0;
}

/* "198.18.100.1:1919", for messages. */
static const char *format_sockaddr(const struct sockaddr_in *in, char *buf, size_t len)
{
	char ip[INET_ADDRSTRLEN];

	if (inet_ntop(AF_INET, &in->sin_addr, ip, sizeof ip) == NULL)
		snprintf(ip, sizeof ip, "?");
	snprintf(buf, len, "%s:%u", ip, (unsigned)ntohs(in->sin_port));
	return buf;
}

DISPATCHER(jlong, createEventChannel)(JNIEnv *env, jobject self UNUSED)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	int rc;

	if (ch == NULL) {
		disni_throw_errno(env, errno ? errno : ENODEV,
				  "rdma_create_event_channel (needs an RDMA device and /dev/infiniband/rdma_cm)");
		return -1;
	}
	/* Non-blocking, so _getCmEvent never blocks past its poll when another thread won a race. */
	rc = disni_set_nonblocking(ch->fd);
	if (rc < 0) {
		rdma_destroy_event_channel(ch);
		disni_throw_errno(env, -rc, "fcntl(O_NONBLOCK) on the event channel");
		return -1;
	}
	return disni_id(ch);
}

DISPATCHER(jint, destroyEventChannel)(JNIEnv *env UNUSED, jobject self UNUSED, jlong channel)
{
	struct rdma_event_channel *ch = disni_ptr(channel);

	if (ch == NULL)
		return -EINVAL;
	rdma_destroy_event_channel(ch);
	return 0;
}

DISPATCHER(jlong, createId)(JNIEnv *env, jobject self UNUSED, jlong channel, jshort ps)
{
	struct rdma_event_channel *ch = disni_ptr(channel);
	struct rdma_cm_id *id = NULL;

	/* A NULL channel would make a synchronous id whose events DiSNI has no way to read. */
	if (ch == NULL) {
		disni_throw_msg(env, "rdma_create_id: no event channel");
		return -1;
	}
	if (rdma_create_id(ch, &id, NULL, (enum rdma_port_space)(uint16_t)ps)) {
		disni_throw_errno(env, errno, "rdma_create_id(ps=%d)", (int)(uint16_t)ps);
		return -1;
	}
	return disni_id(id);
}

DISPATCHER(jint, destroyCmId)(JNIEnv *env UNUSED, jobject self UNUSED, jlong cm_id)
{
	struct rdma_cm_id *id = disni_ptr(cm_id);

	if (id == NULL)
		return -EINVAL;
	return rdma_destroy_id(id) ? -errno : 0;
}

DISPATCHER(jint, destroyEp)(JNIEnv *env UNUSED, jobject self UNUSED, jlong cm_id)
{
	struct rdma_cm_id *id = disni_ptr(cm_id);

	if (id == NULL)
		return -EINVAL;
	rdma_destroy_ep(id);
	return 0;
}

static uint32_t device_max_sge(struct ibv_context *ctx)
{
	struct ibv_device_attr attr;

	if (ctx == NULL || ibv_query_device(ctx, &attr) || attr.max_sge < 1)
		return 1;
	return attr.max_sge < QP_MAX_SGE ? (uint32_t)attr.max_sge : QP_MAX_SGE;
}

DISPATCHER(jlong, createQP)(JNIEnv *env, jobject self UNUSED, jlong cm_id, jlong pd_id,
			    jlong send_cq, jlong recv_cq, jint qp_type, jint max_send_wr,
			    jint max_recv_wr, jint max_inline_data)
{
	struct rdma_cm_id *id = disni_ptr(cm_id);
	struct ibv_qp_init_attr attr;

	if (id == NULL || send_cq == 0 || recv_cq == 0) {
		disni_throw_msg(env, "rdma_create_qp: missing cm id or completion queue");
		return -1;
	}
	if (max_send_wr < 0 || max_recv_wr < 0 || max_inline_data < 0) {
		disni_throw_msg(env, "rdma_create_qp: negative capacity (max_send_wr=%d, max_recv_wr=%d, max_inline_data=%d)",
				max_send_wr, max_recv_wr, max_inline_data);
		return -1;
	}
	memset(&attr, 0, sizeof attr);
	attr.send_cq = disni_ptr(send_cq);
	attr.recv_cq = disni_ptr(recv_cq);
	attr.qp_type = (enum ibv_qp_type)qp_type;
	attr.cap.max_send_wr = (uint32_t)max_send_wr;
	attr.cap.max_recv_wr = (uint32_t)max_recv_wr;
	attr.cap.max_send_sge = device_max_sge(id->verbs);
	attr.cap.max_recv_sge = attr.cap.max_send_sge;
	attr.cap.max_inline_data = (uint32_t)max_inline_data;
	attr.sq_sig_all = 0; /* only requests posted with IBV_SEND_SIGNALED complete */
	if (rdma_create_qp(id, disni_ptr(pd_id), &attr)) {
		int err = errno;
		struct ibv_pd *pd = disni_ptr(pd_id);
		struct ibv_cq *cq = attr.send_cq;

		/* which device each part belongs to: a connection resolved to another device than
		 * the protection domain's and completion queue's is refused (EINVAL) */
		disni_throw_errno(env, err,
				  "rdma_create_qp(type=%d, max_send_wr=%d, max_recv_wr=%d, max_inline_data=%d; "
				  "connection on %s, protection domain on %s%s, completion queue on %s%s)",
				  qp_type, max_send_wr, max_recv_wr, max_inline_data,
				  id->verbs ? ibv_get_device_name(id->verbs->device) : "no device",
				  pd && pd->context ? ibv_get_device_name(pd->context->device) : "no device",
				  pd && pd->context != id->verbs ? " (another context)" : "",
				  cq && cq->context ? ibv_get_device_name(cq->context->device) : "no device",
				  cq && cq->context != id->verbs ? " (another context)" : "");
		return -1;
	}
	return disni_id(id->qp);
}

/* DiSNI passes the cm id here, not the queue pair. */
DISPATCHER(jint, destroyQP)(JNIEnv *env UNUSED, jobject self UNUSED, jlong cm_id)
{
	struct rdma_cm_id *id = disni_ptr(cm_id);

	if (id == NULL || id->qp == NULL)
		return -EINVAL;
	rdma_destroy_qp(id);
	return 0;
}

DISPATCHER(void, bindAddr)(JNIEnv *env, jobject self UNUSED, jlong cm_id, jlong addr_buf)
{
	struct rdma_cm_id *id = disni_ptr(cm_id);
	struct sockaddr_in addr;
	char text[64];
	int rc;

	if (id == NULL) {
		disni_throw_msg(env, "rdma_bind_addr: no cm id");
		return;
	}
	rc = read_sockaddr(addr_buf, &addr);
	if (rc < 0) {
		disni_throw_errno(env, -rc, "rdma_bind_addr: address is not IPv4");
		return;
	}
	if (rdma_bind_addr(id, (struct sockaddr *)&addr))
		disni_throw_errno(env, errno, "rdma_bind_addr(%s)",
				  format_sockaddr(&addr, text, sizeof text));
}

DISPATCHER(void, listen)(JNIEnv *env, jobject self UNUSED, jlong cm_id, jint backlog)
{
	struct rdma_cm_id *id = disni_ptr(cm_id);

	if (id == NULL) {
		disni_throw_msg(env, "rdma_listen: no cm id");
		return;
	}
	if (rdma_listen(id, backlog))
		disni_throw_errno(env, errno, "rdma_listen(backlog=%d)", backlog);
}

DISPATCHER(void, resolveAddr)(JNIEnv *env, jobject self UNUSED, jlong cm_id, jlong src_buf,
			      jlong dst_buf, jint timeout_ms)
{
	struct rdma_cm_id *id = disni_ptr(cm_id);
	struct sockaddr_in src, dst;
	char text[64];
	int rc;

	if (id == NULL) {
		disni_throw_msg(env, "rdma_resolve_addr: no cm id");
		return;
	}
	rc = read_sockaddr(dst_buf, &dst);
	if (rc == 0 && src_buf != 0)
		rc = read_sockaddr(src_buf, &src);
	if (rc < 0) {
		disni_throw_errno(env, -rc, "rdma_resolve_addr: address missing or not IPv4");
		return;
	}
	if (rdma_resolve_addr(id, src_buf != 0 ? (struct sockaddr *)&src : NULL,
			      (struct sockaddr *)&dst, timeout_ms))
		disni_throw_errno(env, errno, "rdma_resolve_addr(%s, timeout %d ms)",
				  format_sockaddr(&dst, text, sizeof text), timeout_ms);
}

DISPATCHER(void, resolveRoute)(JNIEnv *env, jobject self UNUSED, jlong cm_id, jint timeout_ms)
{
	struct rdma_cm_id *id = disni_ptr(cm_id);

	if (id == NULL) {
		disni_throw_msg(env, "rdma_resolve_route: no cm id");
		return;
	}
	if (rdma_resolve_route(id, timeout_ms))
		disni_throw_errno(env, errno, "rdma_resolve_route(timeout %d ms)", timeout_ms);
}

/*
 * Waits up to timeout_ms (negative: no limit) for the next event of the channel. Returns its type
 * and stores two cm ids: at listen_out the listening id for a connect request and the event's
 * own id for every other event (so events of a listening id reach DiSNI's server endpoint), at
 * conn_out the event's id (for a connect request, the new id of the connection). Returns
 * -ETIMEDOUT when no event came, another negative errno on failure.
 */
DISPATCHER(jint, getCmEvent)(JNIEnv *env UNUSED, jobject self UNUSED, jlong channel,
			     jlong listen_out, jlong conn_out, jint timeout_ms)
{
	struct rdma_event_channel *ch = disni_ptr(channel);
	struct rdma_cm_event *event;
	struct rdma_cm_id *listen_id;
	int type, rc;

	if (ch == NULL || listen_out == 0 || conn_out == 0)
		return -EINVAL;
	rc = disni_wait_readable(ch->fd, timeout_ms);
	if (rc <= 0)
		return rc == 0 ? -ETIMEDOUT : rc;
	if (rdma_get_cm_event(ch, &event))
		return errno == EAGAIN ? -ETIMEDOUT : -errno;
	type = (int)event->event;
	listen_id = event->listen_id != NULL ? event->listen_id : event->id;
	disni_st64(disni_ptr(listen_out), 0, (uint64_t)disni_id(listen_id));
	disni_st64(disni_ptr(conn_out), 0, (uint64_t)disni_id(event->id));
	rdma_ack_cm_event(event);
	return type;
}

/* Events are acknowledged by _getCmEvent already (see the top of this file). */
DISPATCHER(jint, ackCmEvent)(JNIEnv *env UNUSED, jobject self UNUSED, jint event UNUSED)
{
	return 0;
}

/*
 * responder_resources and initiator_depth are left to librdmacm (RDMA_MAX_*: the device's limits
 * when connecting, the request's values capped by the device when accepting): DiSNI can't pass
 * them, and 0 would forbid RDMA READ on the connection.
 */
static void conn_param_init(struct rdma_conn_param *p, jint retry, jint rnr_retry)
{
	memset(p, 0, sizeof *p);
	p->responder_resources = RDMA_MAX_RESP_RES;
	p->initiator_depth = RDMA_MAX_INIT_DEPTH;
	p->flow_control = 1;
	p->retry_count = (uint8_t)(retry < 0 ? 0 : retry > RETRY_MAX ? RETRY_MAX : retry);
	p->rnr_retry_count = (uint8_t)(rnr_retry < 0 ? 0 : rnr_retry > RETRY_MAX ? RETRY_MAX : rnr_retry);
}

DISPATCHER(void, connect)(JNIEnv *env, jobject self UNUSED, jlong cm_id, jint retry,
			  jint rnr_retry, jlong private_data, jbyte private_data_len)
{
	struct rdma_cm_id *id = disni_ptr(cm_id);
	struct rdma_conn_param param;
	uint8_t len = (uint8_t)private_data_len;

	if (id == NULL) {
		disni_throw_msg(env, "rdma_connect: no cm id");
		return;
	}
	if (len > 0 && private_data == 0) {
		disni_throw_msg(env, "rdma_connect: private_data_len=%u without private data", len);
		return;
	}
	conn_param_init(&param, retry, rnr_retry);
	param.private_data = len > 0 ? disni_ptr(private_data) : NULL;
	param.private_data_len = len;
	if (rdma_connect(id, &param))
		disni_throw_errno(env, errno, "rdma_connect(private_data_len=%u)", len);
}

DISPATCHER(void, accept)(JNIEnv *env, jobject self UNUSED, jlong cm_id, jint retry,
			 jint rnr_retry)
{
	struct rdma_cm_id *id = disni_ptr(cm_id);
	struct rdma_conn_param param;

	if (id == NULL) {
		disni_throw_msg(env, "rdma_accept: no cm id");
		return;
	}
	conn_param_init(&param, retry, rnr_retry);
	if (rdma_accept(id, &param))
		disni_throw_errno(env, errno, "rdma_accept");
}

DISPATCHER(jint, disconnect)(JNIEnv *env UNUSED, jobject self UNUSED, jlong cm_id)
{
	struct rdma_cm_id *id = disni_ptr(cm_id);

	if (id == NULL)
		return -EINVAL;
	return rdma_disconnect(id) ? -errno : 0;
}

DISPATCHER(jint, getSrcAddr)(JNIEnv *env UNUSED, jobject self UNUSED, jlong cm_id, jlong out)
{
	struct rdma_cm_id *id = disni_ptr(cm_id);

	return id == NULL ? -EINVAL : write_sockaddr(rdma_get_local_addr(id), out);
}

DISPATCHER(jint, getDstAddr)(JNIEnv *env UNUSED, jobject self UNUSED, jlong cm_id, jlong out)
{
	struct rdma_cm_id *id = disni_ptr(cm_id);

	return id == NULL ? -EINVAL : write_sockaddr(rdma_get_peer_addr(id), out);
}

/* The device context an id is bound to: set once it is bound to an address or resolved. */
DISPATCHER(jlong, getContext)(JNIEnv *env, jobject self UNUSED, jlong cm_id)
{
	struct rdma_cm_id *id = disni_ptr(cm_id);

	if (id == NULL) {
		disni_throw_msg(env, "getContext: no cm id");
		return -1;
	}
	if (id->verbs == NULL) {
		disni_throw_msg(env, "getContext: the cm id is not bound to a device yet (bind or resolve an address first)");
		return -1;
	}
	return disni_id(id->verbs);
}
