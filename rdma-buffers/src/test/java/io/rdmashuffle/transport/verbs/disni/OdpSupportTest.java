package io.rdmashuffle.transport.verbs.disni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmashuffle.config.VerbsRegistration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Which registration served memory gets, from the setting and the device's ODP caps. */
@Timeout(10)
class OdpSupportTest {
  private static final long RC_READ_ODP = OdpSupport.GENERAL_SUPPORT | OdpSupport.RC_READ;

  /** ODP, but for RC only SEND and RECV (bits 0 and 1). */
  private static final long RC_SEND_ODP = OdpSupport.GENERAL_SUPPORT | 0b11;

  @Test
  void autoUsesOnDemandPagingWhereTheDeviceServesRcReadFromIt() {
    OdpSupport odp = OdpSupport.decide(VerbsRegistration.AUTO, "rxe0", RC_READ_ODP, "k");

    assertTrue(odp.servedOnDemand());
    assertEquals(
        "on-demand paging (verbs.registration=auto; rxe0 supports RC READ on demand)",
        odp.describe());
  }

  @Test
  void autoPinsWhereTheDeviceHasNoOdpOrNoneForRcRead() {
    OdpSupport none = OdpSupport.decide(VerbsRegistration.AUTO, "rxe0", 0, "k");
    OdpSupport noRead = OdpSupport.decide(VerbsRegistration.AUTO, "rxe0", RC_SEND_ODP, "k");

    assertFalse(none.servedOnDemand());
    assertEquals("pinned (verbs.registration=auto; rxe0 has no on-demand paging)", none.describe());
    assertFalse(noRead.servedOnDemand());
    assertTrue(noRead.describe().contains("not for RC READ (rc_odp_caps=0x3)"), noRead.describe());
  }

  @Test
  void autoPinsOnSoftRoceWhoseOnDemandReadsReturnTheWrongBytes() {
    long softRoce = RC_READ_ODP | OdpSupport.SOFT_ROCE;
    OdpSupport auto = OdpSupport.decide(VerbsRegistration.AUTO, "rxe0", softRoce, "k");
    OdpSupport odp = OdpSupport.decide(VerbsRegistration.ODP, "rxe0", softRoce, "k");

    assertFalse(auto.servedOnDemand());
    assertTrue(
        auto.describe().startsWith("pinned (verbs.registration=auto; rxe0 is Soft-RoCE, whose"),
        auto.describe());
    assertTrue(odp.servedOnDemand(), "odp is the operator's explicit choice");
    assertTrue(odp.describe().contains("but it is Soft-RoCE"), odp.describe());
  }

  @Test
  void pinnedPinsEvenWhereOdpWorks() {
    OdpSupport odp = OdpSupport.decide(VerbsRegistration.PINNED, "rxe0", RC_READ_ODP, "k");

    assertFalse(odp.servedOnDemand());
    assertEquals("pinned (verbs.registration=pinned)", odp.describe());
  }

  @Test
  void odpOnADeviceWithoutItRefusesToStartNamingSettingAndDevice() {
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () ->
                OdpSupport.decide(
                    VerbsRegistration.ODP, "rxe0", 0, "spark.shuffle.rdma.verbs.registration"));

    assertEquals(
        "spark.shuffle.rdma.verbs.registration=odp, but rxe0 has no on-demand paging;"
            + " use auto or pinned",
        e.getMessage());
  }

  @Test
  void aFailedCapsQueryIsReportedWithItsErrno() {
    OdpSupport odp = OdpSupport.decide(VerbsRegistration.AUTO, "rxe0", -95, "k");

    assertFalse(odp.servedOnDemand());
    assertTrue(odp.describe().contains("errno 95"), odp.describe());
  }
}
