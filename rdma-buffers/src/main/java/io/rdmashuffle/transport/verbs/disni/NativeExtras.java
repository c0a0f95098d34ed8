package io.rdmashuffle.transport.verbs.disni;

/**
 * What the verbs transport needs from librdmacm beyond DiSNI 2.1's API, implemented in our
 * native library ({@code src/main/c/rdmashuffle_extras.c}). Lives in the DiSNI class loader,
 * which loaded that library, so its methods link.
 */
final class NativeExtras {
  private NativeExtras() {}

  /**
   * Makes librdmacm resync its device list, so it closes its context of a removed device once
   * no id uses it any more (without this the kernel waits forever for the removal to finish).
   *
   * @return the number of devices still present, or a negative errno
   */
  static native int syncDevices();
}
