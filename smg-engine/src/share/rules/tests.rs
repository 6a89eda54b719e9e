use super::*;

fn found(text: &str) -> Vec<(Kind, String)> {
    Rules::new(&[])
        .find(text)
        .map(|(k, v)| (k, v.to_string()))
        .collect()
}

fn one(text: &str, kind: Kind, value: &str) {
    assert_eq!(found(text), vec![(kind, value.to_string())], "in {text:?}");
}

#[test]
fn every_kind_is_found_in_talk() {
    one(
        "key AKIAIOSFODNN7EXAMPLE in env",
        Kind::AwsKey,
        "AKIAIOSFODNN7EXAMPLE",
    );
    let openai = "sk-proj-Ab3dEfGh1jKlMnOpQrStUvWxYz0123456789abcdEFGH";
    one(&format!("OPENAI={openai}"), Kind::OpenaiKey, openai);
    let old_openai = "sk-abcdefghij1234567890T3BlbkFJabcdefghij1234567890";
    one(
        &format!("use {old_openai} now"),
        Kind::OpenaiKey,
        old_openai,
    );
    let ant = "sk-ant-api03-AbCdEf0123456789_-AbCdEf0123456789AbCdEf0123456789";
    one(&format!("'{ant}'"), Kind::AnthropicKey, ant);
    one(
        "token ghp_abcdefghijklmnopqrstuvwxyz0123456789 ok",
        Kind::GithubToken,
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    );
    one(
        "glpat-AbCdEfGhIjKlMnOpQrSt works",
        Kind::GitlabToken,
        "glpat-AbCdEfGhIjKlMnOpQrSt",
    );
    one(
        "xoxb-1234567890-1234567890123-AbCdEfGhIjKl",
        Kind::SlackToken,
        "xoxb-1234567890-1234567890123-AbCdEfGhIjKl",
    );
    let hook = "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX";
    one(&format!("post to {hook}"), Kind::SlackToken, hook);
    one(
        "stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc here",
        Kind::StripeKey,
        "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    );
    one(
        "AIzaSyD-1234567890abcdefghijklmnopqrstu",
        Kind::GoogleKey,
        "AIzaSyD-1234567890abcdefghijklmnopqrstu",
    );
    let jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
    one(&format!("Authorization: Bearer {jwt}"), Kind::Jwt, jwt);
    let pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw\n7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxKLxoS2tFc\n-----END RSA PRIVATE KEY-----";
    one(&format!("key:\n{pem}\nend"), Kind::PrivateKey, pem);
    one("db password: hunter2!x", Kind::Password, "hunter2!x");
    one(
        r#"{"password": "s3cr3t-Pa55"}"#,
        Kind::Password,
        "s3cr3t-Pa55",
    );
    one(
        "Server=db;User Id=app;Password=Tr0ub4dor&3;",
        Kind::Password,
        "Tr0ub4dor&3",
    );
    one(
        "api_key = 'a8f5f167f44f4964e6c998dee827110c'",
        Kind::Secret,
        "a8f5f167f44f4964e6c998dee827110c",
    );
    one(
        "postgres://admin:pa55word@db.internal:5432/app",
        Kind::UrlCredentials,
        "admin:pa55word",
    );
    one(
        "write to ada.lovelace+smg@example.co.uk today",
        Kind::Email,
        "ada.lovelace+smg@example.co.uk",
    );
    one(
        "call +44 20 7946 0958 tomorrow",
        Kind::Phone,
        "+44 20 7946 0958",
    );
    one("or (555) 123-4567.", Kind::Phone, "(555) 123-4567");
    one(
        "card 4111 1111 1111 1111 exp 12/27",
        Kind::Card,
        "4111 1111 1111 1111",
    );
    one(
        "IBAN GB82 WEST 1234 5698 7654 32 please",
        Kind::Iban,
        "GB82 WEST 1234 5698 7654 32",
    );
    one("ssh into 192.168.1.20 then", Kind::Ip, "192.168.1.20");
    one(
        "bind to 2001:db8:85a3::8a2e:370:7334 now",
        Kind::Ip,
        "2001:db8:85a3::8a2e:370:7334",
    );
}

#[test]
fn ordinary_text_is_left_alone() {
    for text in [
        "We met on 2023-05-08 at 13:56 and talked for 45 minutes.",
        "Upgrade to version 1.2.3.4 of the library, then v10.0.0.1",
        "The order number is 1234567890123 and the total was $45.99",
        "use std::collections::HashMap; fn main() { a::b::c(); }",
        "timestamps 1683554160000 and 2025-12-04T10:30:00Z",
        "the password is required; set password: ${DB_PASSWORD}",
        "password: ******** and password = <your password>",
        "token limit: 4096, max tokens: 2000",
        "see icon@2x.png and the @types/node package",
        "the sk-learn model and the sk-ant prefix are fine",
        "My phone died, so call me at home around 5.",
        "Card 4111 1111 1111 1112 fails Luhn",
        "GB82 WEST 1234 5698 7654 33 fails mod 97",
        "10:30:45 and ab:cd:ef",
    ] {
        assert_eq!(found(text), vec![], "in {text:?}");
    }
}

#[test]
fn kept_kinds_are_not_found() {
    let rules = Rules::new(&[Kind::Email, Kind::Ip]);
    let found: Vec<_> = rules
        .find("ada@example.org 10.1.2.3 AKIAIOSFODNN7EXAMPLE")
        .collect();
    assert_eq!(found, vec![(Kind::AwsKey, "AKIAIOSFODNN7EXAMPLE")]);
}

#[test]
fn overlapping_values_give_the_first_and_longest() {
    let text = "mysql://root:pw1234@db.example.com/x and root@db.example.com";
    let got = found(text);
    assert_eq!(got[0], (Kind::UrlCredentials, "root:pw1234".to_string()));
    assert_eq!(got[1], (Kind::Email, "root@db.example.com".to_string()));
}

#[test]
fn names_round_trip() {
    for k in Kind::ALL {
        assert_eq!(Kind::from_name(k.name()), Some(k));
    }
    assert_eq!(Kind::from_name("nope"), None);
}

#[test]
fn code_and_dates_are_not_passwords_or_phones() {
    for text in [
        "struct Login { password: Option<String>, user: String }",
        "let password = Some(secret); let password = match x { _ => 1 };",
        "fn f(password: Zeroizing<Vec<u8>>) { password.len() }",
        "the date \"+2025-12-31\" is refused",
        "serve on 127.0.0.1:8080 or 0.0.0.0 or ::1",
        "password: letmein",
    ] {
        assert_eq!(found(text), vec![], "in {text:?}");
    }
    one("password: sunshine42", Kind::Password, "sunshine42");
    one(
        "password: correcthorse then",
        Kind::Password,
        "correcthorse",
    );
}
