package io.sluice.redis.order;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which event of a key is called, which waits and how long, and which is blocked behind a dead head. */
class OrderTurnTest {
  private static final long EPOCH = 1_795_946_047_135_000L;
  private static final long STEP = 1_000;

  private static OrderTurn turnOf(long seq, KeyTurn key) {
    return OrderTurn.of(new OrderTicket(EPOCH, seq), Optional.ofNullable(key), STEP);
  }

  @Test
  void shouldCallOnlyTheHeadOfItsKey() {
    KeyTurn key = new KeyTurn(EPOCH, 3, 0);
    assertEquals(new OrderTurn.Call(), turnOf(3, key));
    assertEquals(new OrderTurn.Wait(1, STEP), turnOf(4, key), "one behind: the smallest step");
    assertEquals(new OrderTurn.Wait(5, 5 * STEP), turnOf(8, key), "five behind: five steps");
    assertEquals(new OrderTurn.Wait(1_000, OrderTurn.MAX_WAIT_MILLIS), turnOf(1_003, key), "far behind: at most 30 s");
  }

  @Test
  void shouldCallATicketWithNothingLeftToWaitFor() {
    KeyTurn key = new KeyTurn(EPOCH, 3, 0);
    assertEquals(new OrderTurn.Call(), turnOf(2, key), "its turn passed: settled, read again");
    assertEquals(new OrderTurn.Call(), turnOf(9, null), "no state: drained, expired or lost");
    assertEquals(new OrderTurn.Call(), OrderTurn.of(new OrderTicket(EPOCH - 1, 9), Optional.of(key), STEP),
        "another epoch: given before the key's turns began again");
  }

  @Test
  void shouldBlockTheFollowersOfADeadHeadUpToTheLastGivenAtItsDeath() {
    KeyTurn key = new KeyTurn(EPOCH, 4, 6);
    assertEquals(new OrderTurn.Blocked(), turnOf(4, key));
    assertEquals(new OrderTurn.Wait(2, 2 * STEP), turnOf(6, key), "blocked, but not its turn yet");
    assertEquals(new OrderTurn.Call(), turnOf(7, new KeyTurn(EPOCH, 7, 6)), "given after the death: called");
  }

  @Test
  void shouldReadBackTheTicketItWrote() {
    OrderTicket ticket = new OrderTicket(EPOCH, 42);
    assertEquals("v1 1795946047135000 42", ticket.encoded());
    assertEquals(Optional.of(ticket), OrderTicket.decoded(ticket.encoded()));
    assertEquals(Optional.empty(), OrderTicket.decoded("v2 1 2"));
    assertEquals(Optional.empty(), OrderTicket.decoded("v1 1 0"));
    assertEquals(Optional.empty(), OrderTicket.decoded("v1 x 2"));
    assertEquals(Optional.empty(), OrderTicket.decoded(null));
  }
}
