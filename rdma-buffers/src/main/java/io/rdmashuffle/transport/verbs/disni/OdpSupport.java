package io.rdmashuffle.transport.verbs.disni;

import io.rdmashuffle.config.VerbsRegistration;

/**
 * Whether served memory is registered with on-demand paging, decided once per device from the
 * setting {@code verbs.registration} and what the device reports ({@code ibv_query_device_ex} ODP
 * caps, through {@link NativeExtras#odpCaps}): on-demand needs ODP for RC with READ (the device
 * answers READs from pages it faults in). {@link #describe} says which and why, for the log and the
 * doctor.
 */
record OdpSupport(VerbsRegistration setting, String device, long caps, boolean servedOnDemand) {
  /** ODP general support ({@code IBV_ODP_SUPPORT}) in the high word of the caps. */
  static final long GENERAL_SUPPORT = 1L << 32;

  /** {@code IBV_ODP_SUPPORT_READ} in {@code rc_odp_caps} (the low word). */
  static final long RC_READ = 1L << 3;

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
        setting == VerbsRegistration.ODP || (setting == VerbsRegistration.AUTO && can));
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
      case ODP -> mode + " (verbs.registration=odp; " + device + " supports RC READ on demand)";
      case AUTO ->
          mode
              + " (verbs.registration=auto; "
              + device
              + " "
              + (servedOnDemand ? "supports RC READ on demand" : lacks(caps))
              + ")";
    };
  }
}
