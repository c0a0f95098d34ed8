/*
 * Native methods of rdma-shuffle's own class io.rdmashuffle.transport.verbs.disni.NativeExtras:
 * what the verbs transport needs from librdmacm that DiSNI 2.1 does not expose.
 */
#define _GNU_SOURCE
#include "disni.h"

#include <errno.h>
#include <rdma/rdma_cma.h>

/*
 * Makes librdmacm look at the device list again. After a device is removed, librdmacm keeps its
 * context of that device open (and the kernel then waits forever for the removal to finish)
 * until something makes it resync its list: rdma_get_devices does, and once the process
 * destroyed every id on the removed device, librdmacm closes its context there. Returns the
 * number of devices still present, or a negative errno.
 */
JNIEXPORT jint JNICALL
Java_io_rdmashuffle_transport_verbs_disni_NativeExtras_syncDevices(JNIEnv *env UNUSED,
								  jclass cls UNUSED)
{
	int n = 0;
	struct ibv_context **list = rdma_get_devices(&n);

	if (list == NULL)
		return errno ? -errno : -ENODEV;
	rdma_free_devices(list);
	return n;
}
