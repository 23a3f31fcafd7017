package rw;

/** A row of the webapp's repository. */
public class Row {
    int id;
    int price;
}
