package io.rdmashuffle.transport.verbs.disni;

import io.rdmashuffle.config.VerbsRegistration;

/**
 * Whether served memory is registered with on-demand paging, decided once per device from the
 * setting {@code verbs.registration} and what the device reports ({@code ibv_query_device_ex} ODP
 * caps, through {@link NativeExtras#odpCaps}): on-demand needs ODP for RC with READ (the device
 * answers READs from pages it faults in). {@link #describe} says which and why, for the log and the
 * doctor.
 *
 * <p>{@code auto} never picks on-demand paging on Soft-RoCE: Linux's rxe (6.14 to at least 7.3)
 * answers an on-demand READ with the bytes at the start of each page instead of those at the
 * address asked for (it ignores the offset within the page; see {@code
 * integration/softroce/odp-read-repro.c}). {@code odp} still registers on demand there, for a
 * kernel that has the fix.
 */
record OdpSupport(VerbsRegistration setting, String device, long caps, boolean servedOnDemand) {
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

  /**
   * Decides for {@code device}.
   *
   * @throws IllegalStateException when the setting requires on-demand paging the device lacks
   */
  static OdpSupport decide(VerbsRegistration setting, String device, long caps, String key) {
    boolean can = rcRead(caps);
    if (setting == VerbsRegistration.ODP && !can) {
      throw new IllegalStateException(
          key + "=odp, but " + device + " " + lacks(caps) + "; use auto or pinned");
    }
    return new OdpSupport(
        setting,
        device,
        caps,
        setting == VerbsRegistration.ODP
            || (setting == VerbsRegistration.AUTO && can && !softRoce(caps)));
  }

  /** Whether the device is Soft-RoCE, whose on-demand READs return the wrong bytes. */
  static boolean softRoce(long caps) {
    return caps > 0 && (caps & SOFT_ROCE) != 0;
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

  private static final String SOFT_ROCE_DEFECT =
      "whose on-demand READs return the bytes at the start of the page instead of those asked for"
          + " (a Linux rxe defect)";

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
              + (softRoce(caps) ? "; but it is Soft-RoCE, " + SOFT_ROCE_DEFECT : "")
              + ")";
      case AUTO ->
          mode
              + " (verbs.registration=auto; "
              + device
              + " "
              + (servedOnDemand
                  ? "supports RC READ on demand"
                  : rcRead(caps) && softRoce(caps)
                      ? "is Soft-RoCE, " + SOFT_ROCE_DEFECT
                      : lacks(caps))
              + ")";
    };
  }
}
