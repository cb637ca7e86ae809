//! Vocabulary of facts: the words people ask about a kind of fact with.
//!
//! A fact says "Is an architect"; the question says "what is the user's
//! occupation". The words of a fact's category, of its attribute and its
//! subject are indexed beside its content ([`fact_keys`]), so that a question
//! about the kind of thing finds the thing. Each category has one list, and
//! each single-valued attribute the prompt names (`residence`, `employer`,
//! …) one more; any other attribute (`favorite:band`, `my:door code`,
//! `allergy:peanuts`) is read as its own words.

/// The words of a fact's category, of its attribute and of its subject, as one
/// text for the index. Empty for a record with none of them.
pub fn fact_keys(category: Option<&str>, attribute: Option<&str>, subject: Option<&str>) -> String {
    let mut words: Vec<&str> = Vec::new();
    if let Some(c) = category {
        words.push(c);
        words.push(category_words(c));
    }
    let attribute_text;
    if let Some(a) = attribute {
        attribute_text = a.replace([':', '-', '_'], " ");
        words.push(&attribute_text);
        words.push(attribute_words(a));
    }
    let subject_text;
    if let Some(s) = subject.filter(|s| *s != "user") {
        subject_text = s.replace('-', " ");
        words.push(&subject_text);
    }
    words.retain(|w| !w.is_empty());
    words.join(" ")
}

/// Words that ask about a category (one of [`crate::models::rules::CATEGORIES`]).
pub fn category_words(category: &str) -> &'static str {
    match category {
        "identity" => "name called age old birthday born nationality from hometown language speaks",
        "profession" => {
            "job work works occupation profession career employer company role position title studies student living"
        }
        "preference" => "likes loves enjoys favourite favorite prefers preference dislikes hates",
        "belief" => "believes belief opinion thinks views values religion faith politics",
        "relationship" => {
            "family partner married wife husband spouse friend children kids son daughter parent mother father sister brother cousin colleague pet"
        }
        "attribute" => "health allergy allergic condition owns appearance trait",
        "pattern" => "habit routine usually often regularly",
        "event" => "happened event went visited trip",
        "task" => "task todo reminder deadline plan",
        _ => "",
    }
}

/// Words that ask about one of the single-valued attributes the extraction
/// prompt names; other attributes carry their meaning in their own words.
pub fn attribute_words(attribute: &str) -> &'static str {
    match attribute {
        "residence" => "lives home city address where",
        "employer" => "works company employer job",
        "role" | "profession" => "job occupation work profession career",
        "partner" => "partner spouse wife husband girlfriend boyfriend married",
        "name" => "name called",
        "age" => "age old years",
        "birthday" => "birthday born",
        "origin" => "from origin born hometown",
        "diet" => "diet eats food",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::rules::CATEGORIES;

    #[test]
    fn every_category_has_words() {
        for c in CATEGORIES {
            assert!(!category_words(c).is_empty(), "{c}");
        }
    }

    #[test]
    fn keys_join_category_attribute_and_subject_words() {
        let keys = fact_keys(Some("profession"), Some("profession"), Some("lea"));
        assert!(keys.contains("occupation") && keys.contains("job"));
        assert!(keys.ends_with("lea"));
        assert_eq!(
            fact_keys(None, Some("favorite:band"), Some("acme-corp")),
            "favorite band acme corp"
        );
        assert_eq!(fact_keys(None, None, Some("user")), "");
        assert_eq!(fact_keys(None, None, None), "");
    }
}
