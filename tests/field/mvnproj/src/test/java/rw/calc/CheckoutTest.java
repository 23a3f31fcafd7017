package rw.calc;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class CheckoutTest {
    @Test
    public void many() {
        Checkout c = new Checkout();
        for (int i = 0; i < 2000; i++) {
            assertEquals(20, c.run(new long[] {1, 2, 3}));
        }
    }
}
