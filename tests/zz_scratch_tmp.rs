use engram::storage::record::*;
#[test]
fn scratch() {
    for v in [
        "a\nb\u{2029}",
        "a\nb\u{2028}c\u{2028}",
        "\u{2028}",
        "a\n\u{2028}\u{2028}",
    ] {
        let mut r = Record::new(
            "x".into(),
            Kind::Semantic,
            chrono::DateTime::from_timestamp(0, 0).unwrap(),
            "b",
        );
        r.user = Some(v.into());
        let t = r.render();
        let fb = Fallbacks {
            id: "f".into(),
            kind: Kind::Semantic,
            created: r.created,
        };
        println!(
            "{v:?} => {t:?}\n   {:?}",
            Record::parse(&t, &fb).map(|p| (p.user, p.created))
        );
    }
}
