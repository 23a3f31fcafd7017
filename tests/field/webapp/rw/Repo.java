package rw;

/** The data access: a row by id, computed (no database). */
public class Repo {
    public Row find(int id) {
        Row r = new Row();
        r.id = id;
        r.price = 100 + id % 50;
        return r;
    }
}
