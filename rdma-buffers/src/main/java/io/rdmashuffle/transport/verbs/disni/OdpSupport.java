/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.disni;

import io.rdmashuffle.config.VerbsRegistration;

/**
 * Whether served memory is registered with on-demand paging, decided once per device from the
 * setting {@code verbs.registration}, what the device reports ({@code ibv_query_device_ex} ODP
 * caps, through {@link NativeExtras#odpCaps}) and what it does: on-demand needs ODP for RC with
 * READ (the device answers READs from pages it faults in), and READs of on-demand memory that
 * return the bytes asked for ({@link NativeExtras#odpReadCheck}, READs through the device's own
 * loopback, before anything is served). {@link #describe} says which and why, for the log and the
 * doctor.
 *
 * <p>The check is not a formality: Linux's Soft-RoCE (rxe, 6.14 to at least 7.3) reports RC READ on
 * demand and answers an on-demand READ with the bytes at the start of each page instead of those at
 * the address asked for ({@code integration/softroce/odp-read-repro.c}); {@code auto} pins there,
 * and {@code odp} refuses to start.
 *
 * @param check what {@link NativeExtras#odpReadCheck} said ({@code right: ...}, {@code wrong: ...}
 *     or {@code untested: ...}), or null where it did not run (no RC READ on demand, or {@code
 *     pinned})
 */
record OdpSupport(
    VerbsRegistration setting, String device, long caps, String check, boolean servedOnDemand) {
  /** ODP general support ({@code IBV_ODP_SUPPORT}) in the high word of the caps. */
  static final long GENERAL_SUPPORT = 1L << 32;

  /** {@code IBV_ODP_SUPPORT_READ} in {@code rc_odp_caps} (the low word). */
  static final long RC_READ = 1L << 3;

  /** Set by {@link NativeExtras#odpCaps} when the device is Soft-RoCE (its vendor id). */
  static final long SOFT_ROCE = 1L << 62;

  /** Whether the caps say RC READ can be served from on-demand pages. */
  static boolean rcRead(long caps) {
    return caps > 0 && (caps & GENERAL_SUPPORT) != 0 && (caps & RC_READ) != 0;
  }

  /** Whether the READ check has to run before deciding: the caps allow on demand and it may be. */
  static boolean needsCheck(VerbsRegistration setting, long caps) {
    return setting != VerbsRegistration.PINNED && rcRead(caps);
  }

  /**
   * Decides for {@code device}.
   *
   * @param check the READ check's words where {@link #needsCheck} (else ignored)
   * @throws IllegalStateException when the setting requires on-demand paging the device lacks, or
   *     whose READs return wrong bytes
   */
  static OdpSupport decide(
      VerbsRegistration setting, String device, long caps, String check, String key) {
    boolean can = rcRead(caps);
    String seen = needsCheck(setting, caps) ? check : null;
    if (setting == VerbsRegistration.ODP && !can) {
      throw new IllegalStateException(
          key + "=odp, but " + device + " " + lacks(caps) + "; use auto or pinned");
    }
    if (setting == VerbsRegistration.ODP && wrong(seen)) {
      throw new IllegalStateException(
          key
              + "=odp, but "
              + device
              + "'s on-demand READs return wrong bytes ("
              + detail(seen)
              + ")"
              + softRoceAdvice(caps)
              + "; use auto or pinned");
    }
    boolean onDemand =
        setting == VerbsRegistration.ODP
            || (setting == VerbsRegistration.AUTO && can && right(seen));
    return new OdpSupport(setting, device, caps, seen, onDemand);
  }

  static boolean right(String check) {
    return check != null && check.startsWith("right");
  }

  static boolean wrong(String check) {
    return check != null && check.startsWith("wrong");
  }

  /** The check's words after its verdict. */
  private static String detail(String check) {
    int colon = check.indexOf(": ");
    return colon < 0 ? check : check.substring(colon + 2);
  }

  /** Whether the device is Soft-RoCE. */
  static boolean softRoce(long caps) {
    return caps > 0 && (caps & SOFT_ROCE) != 0;
  }

  private static String softRoceAdvice(long caps) {
    return softRoce(caps)
        ? ": the Linux Soft-RoCE defect of 6.14 to at least 7.3; a kernel or rdma_rxe with its fix"
            + " serves on demand"
        : "";
  }

  private static String lacks(long caps) {
    if (caps < 0) {
      return "could not be asked for its on-demand paging support (errno " + -caps + ")";
    }
    if ((caps & GENERAL_SUPPORT) == 0) {
      return "has no on-demand paging";
    }
    return "has on-demand paging but not for RC READ (rc_odp_caps=0x"
        + Long.toHexString(caps & 0xffff_ffffL)
        + ")";
  }

  /** One line: which registration runs and why. */
  String describe() {
    String mode = servedOnDemand ? "on-demand paging" : "pinned";
    return switch (setting) {
      case PINNED -> mode + " (verbs.registration=pinned)";
      case ODP ->
          mode
              + " (verbs.registration=odp; "
              + device
              + " supports RC READ on demand"
              + (check == null ? "" : "; READ check: " + check)
              + ")";
      case AUTO -> mode + " (verbs.registration=auto; " + device + " " + autoReason() + ")";
    };
  }

  private String autoReason() {
    if (!rcRead(caps)) {
      return lacks(caps);
    }
    if (right(check)) {
      return "supports RC READ on demand, and its READs of on-demand memory return the bytes"
          + " asked for";
    }
    if (wrong(check)) {
      return "reports RC READ on demand, but its on-demand READs return wrong bytes ("
          + detail(check)
          + ")"
          + softRoceAdvice(caps);
    }
    return "reports RC READ on demand, but its on-demand READs could not be checked ("
        + (check == null ? "no check" : detail(check))
        + ")";
  }
}
