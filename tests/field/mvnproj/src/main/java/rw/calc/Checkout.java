package rw.calc;

/**
 * A checkout: one Repo.find per item, and one more when CI_EXTRA is set in
 * the environment (the "build" with one more call per checkout).
 */
public class Checkout {
    private static final boolean EXTRA = System.getenv("CI_EXTRA") != null;
    private final Repo repo = new Repo();

    public long run(long[] ids) {
        long sum = 0;
        for (long id : ids) {
            sum += repo.find(id);
        }
        if (EXTRA) {
            sum += repo.find(0) - 1;
        }
        return Price.tax(sum);
    }
}
