package rw;

import java.util.ArrayList;
import java.util.List;

/**
 * The webapp's checkout: one Repo.find per checkout (two with -Dci.extra=true,
 * the "build" with one more call), a price per line through a lambda, and
 * an audit on some requests only (a branch: its share depends on the mix).
 */
public class Shop {
    static final boolean EXTRA = Boolean.getBoolean("ci.extra");
    private final Repo repo = new Repo();

    public long checkout(int id) {
        Row row = repo.find(id);
        if (EXTRA) {
            repo.find(id + 1);
        }
        List<Integer> lines = new ArrayList<>();
        for (int i = 0; i < 1 + id % 4; i++) {
            lines.add(row.price + i);
        }
        long total = lines.stream().mapToLong(p -> Price.of(p)).sum();
        if (id % 3 == 0) {
            Audit.log(id, total);
        }
        return total;
    }
}
