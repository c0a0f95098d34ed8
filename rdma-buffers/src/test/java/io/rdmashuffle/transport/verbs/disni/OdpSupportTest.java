/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.disni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmashuffle.config.VerbsRegistration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Which registration served memory gets, from the setting, the device's ODP caps and whether its
 * on-demand READs returned the right bytes.
 */
@Timeout(10)
class OdpSupportTest {
  private static final long RC_READ_ODP = OdpSupport.GENERAL_SUPPORT | OdpSupport.RC_READ;

  /** ODP, but for RC only SEND and RECV (bits 0 and 1). */
  private static final long RC_SEND_ODP = OdpSupport.GENERAL_SUPPORT | 0b11;

  private static final String RIGHT = "right: READs of on-demand memory returned the bytes";
  private static final String WRONG =
      "wrong: a READ of 64 bytes at offset 4196 of on-demand memory returned wrong bytes (first at"
          + " 0: 0x01, not 0x4d)";

  @Test
  void autoUsesOnDemandPagingWhereTheDeviceServesRcReadFromItAndItsReadsAreRight() {
    OdpSupport odp = OdpSupport.decide(VerbsRegistration.AUTO, "mlx5_0", RC_READ_ODP, RIGHT, "k");

    assertTrue(odp.servedOnDemand());
    assertEquals(
        "on-demand paging (verbs.registration=auto; mlx5_0 supports RC READ on demand, and its"
            + " READs of on-demand memory return the bytes asked for)",
        odp.describe());
  }

  @Test
  void autoPinsWhereTheDeviceHasNoOdpOrNoneForRcReadWithoutCheckingReads() {
    OdpSupport none = OdpSupport.decide(VerbsRegistration.AUTO, "rxe0", 0, null, "k");
    OdpSupport noRead = OdpSupport.decide(VerbsRegistration.AUTO, "rxe0", RC_SEND_ODP, null, "k");

    assertFalse(OdpSupport.needsCheck(VerbsRegistration.AUTO, 0));
    assertFalse(OdpSupport.needsCheck(VerbsRegistration.AUTO, RC_SEND_ODP));
    assertFalse(none.servedOnDemand());
    assertEquals("pinned (verbs.registration=auto; rxe0 has no on-demand paging)", none.describe());
    assertFalse(noRead.servedOnDemand());
    assertTrue(noRead.describe().contains("not for RC READ (rc_odp_caps=0x3)"), noRead.describe());
  }

  @Test
  void autoPinsWhereOnDemandReadsReturnWrongBytesAndSaysWhatCame() {
    long softRoce = RC_READ_ODP | OdpSupport.SOFT_ROCE;
    assertTrue(OdpSupport.needsCheck(VerbsRegistration.AUTO, softRoce));

    OdpSupport auto = OdpSupport.decide(VerbsRegistration.AUTO, "rxe0", softRoce, WRONG, "k");

    assertFalse(auto.servedOnDemand());
    assertTrue(
        auto.describe()
            .startsWith(
                "pinned (verbs.registration=auto; rxe0 reports RC READ on demand, but its"
                    + " on-demand READs return wrong bytes (a READ of 64 bytes at offset 4196"),
        auto.describe());
    assertTrue(auto.describe().contains("a kernel or rdma_rxe with its fix"), auto.describe());
  }

  @Test
  void autoServesSoftRoceOnDemandOnceItsReadsAreRight() {
    OdpSupport auto =
        OdpSupport.decide(
            VerbsRegistration.AUTO, "rxe0", RC_READ_ODP | OdpSupport.SOFT_ROCE, RIGHT, "k");

    assertTrue(auto.servedOnDemand(), "an rxe with the fix: " + auto.describe());
  }

  @Test
  void autoPinsWhereTheReadCheckCouldNotRun() {
    OdpSupport auto =
        OdpSupport.decide(
            VerbsRegistration.AUTO,
            "rxe0",
            RC_READ_ODP,
            "untested: on-demand registration refused: Invalid argument",
            "k");

    assertFalse(auto.servedOnDemand());
    assertTrue(auto.describe().contains("could not be checked (on-demand registration refused"));
  }

  @Test
  void odpRefusesToStartWhereOnDemandReadsReturnWrongBytes() {
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () ->
                OdpSupport.decide(
                    VerbsRegistration.ODP,
                    "rxe0",
                    RC_READ_ODP | OdpSupport.SOFT_ROCE,
                    WRONG,
                    "spark.shuffle.rdma.verbs.registration"));

    assertTrue(
        e.getMessage()
            .startsWith(
                "spark.shuffle.rdma.verbs.registration=odp, but rxe0's on-demand READs return"
                    + " wrong bytes (a READ of 64 bytes"),
        e.getMessage());
    assertTrue(e.getMessage().endsWith("; use auto or pinned"), e.getMessage());
  }

  @Test
  void odpServesOnDemandWhereReadsAreRightOrCouldNotBeChecked() {
    assertTrue(
        OdpSupport.decide(VerbsRegistration.ODP, "rxe0", RC_READ_ODP, RIGHT, "k").servedOnDemand());
    OdpSupport untested =
        OdpSupport.decide(VerbsRegistration.ODP, "rxe0", RC_READ_ODP, "untested: timed out", "k");
    assertTrue(untested.servedOnDemand(), "odp is the operator's explicit choice");
    assertTrue(untested.describe().contains("READ check: untested: timed out"));
  }

  @Test
  void pinnedPinsEvenWhereOdpWorksAndChecksNothing() {
    assertFalse(OdpSupport.needsCheck(VerbsRegistration.PINNED, RC_READ_ODP));
    OdpSupport odp = OdpSupport.decide(VerbsRegistration.PINNED, "rxe0", RC_READ_ODP, RIGHT, "k");

    assertFalse(odp.servedOnDemand());
    assertNull(odp.check());
    assertEquals("pinned (verbs.registration=pinned)", odp.describe());
  }

  @Test
  void odpOnADeviceWithoutItRefusesToStartNamingSettingAndDevice() {
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () ->
                OdpSupport.decide(
                    VerbsRegistration.ODP,
                    "rxe0",
                    0,
                    null,
                    "spark.shuffle.rdma.verbs.registration"));

    assertEquals(
        "spark.shuffle.rdma.verbs.registration=odp, but rxe0 has no on-demand paging;"
            + " use auto or pinned",
        e.getMessage());
  }

  @Test
  void aFailedCapsQueryIsReportedWithItsErrno() {
    OdpSupport odp = OdpSupport.decide(VerbsRegistration.AUTO, "rxe0", -95, null, "k");

    assertFalse(odp.servedOnDemand());
    assertTrue(odp.describe().contains("errno 95"), odp.describe());
  }
}
