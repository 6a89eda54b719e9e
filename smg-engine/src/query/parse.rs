//! The grammar of `FIND` queries (winnow combinators):
//!
//! ```text
//! query   := FIND kind [WHERE expr] [ORDER BY field [ASC|DESC]] [LIMIT n]
//! expr    := and (OR and)*
//! and     := not (AND not)*
//! not     := NOT not | '(' expr ')' | field op value
//! op      := = | != | > | >= | < | <= | CONTAINS
//! value   := "text" | 'text' | number
//! ```
//! Keywords are case-insensitive; `kind` is a node type, singular or plural, or
//! `nodes` / `*` for every type.

use winnow::ascii::{multispace0, Caseless};
use winnow::combinator::{alt, cut_err, delimited, opt, preceded, repeat, terminated};
use winnow::error::{ContextError, ErrMode, StrContext, StrContextValue};
use winnow::prelude::*;
use winnow::token::{take_till, take_while};

use super::{Comparison, Expr, Op, Order, Query, Value};

type PResult<T> = winnow::ModalResult<T>;

fn ws<'a, O>(
    p: impl Parser<&'a str, O, ErrMode<ContextError>>,
) -> impl Parser<&'a str, O, ErrMode<ContextError>> {
    delimited(multispace0, p, multispace0)
}

fn label(what: &'static str) -> StrContext {
    StrContext::Expected(StrContextValue::Description(what))
}

fn word<'a>(i: &mut &'a str) -> PResult<&'a str> {
    take_while(1.., |c: char| c.is_alphanumeric() || c == '_' || c == '*').parse_next(i)
}

fn keyword<'a>(k: &'static str) -> impl Parser<&'a str, &'a str, ErrMode<ContextError>> {
    terminated(
        Caseless(k),
        winnow::combinator::not(take_while(1, |c: char| c.is_alphanumeric() || c == '_')),
    )
}

fn string(i: &mut &str) -> PResult<String> {
    alt((
        delimited(
            '"',
            take_till(0.., '"'),
            cut_err('"').context(label("a closing \"")),
        ),
        delimited(
            '\'',
            take_till(0.., '\''),
            cut_err('\'').context(label("a closing '")),
        ),
    ))
    .map(str::to_string)
    .parse_next(i)
}

fn number(i: &mut &str) -> PResult<f64> {
    take_while(1.., |c: char| c.is_ascii_digit() || c == '.' || c == '-')
        .try_map(str::parse::<f64>)
        .parse_next(i)
}

fn value(i: &mut &str) -> PResult<Value> {
    alt((string.map(Value::Text), number.map(Value::Number)))
        .context(label("a \"string\" or a number"))
        .parse_next(i)
}

fn op(i: &mut &str) -> PResult<Op> {
    alt((
        ">=".value(Op::Ge),
        "<=".value(Op::Le),
        "!=".value(Op::Ne),
        "<>".value(Op::Ne),
        "=".value(Op::Eq),
        ">".value(Op::Gt),
        "<".value(Op::Lt),
        keyword("CONTAINS").value(Op::Contains),
    ))
    .context(label("an operator (= != > >= < <= CONTAINS)"))
    .parse_next(i)
}

fn comparison(i: &mut &str) -> PResult<Expr> {
    let field = ws(word).context(label("a field name")).parse_next(i)?;
    let (op, value) = cut_err((ws(op), ws(value))).parse_next(i)?;
    Ok(Expr::Compare(Comparison {
        field: field.to_string(),
        op,
        value,
    }))
}

fn not(i: &mut &str) -> PResult<Expr> {
    alt((
        preceded(ws(keyword("NOT")), cut_err(not)).map(|e| Expr::Not(Box::new(e))),
        delimited(ws('('), cut_err(expr), cut_err(ws(')'))),
        comparison,
    ))
    .parse_next(i)
}

fn and(i: &mut &str) -> PResult<Expr> {
    let first = not.parse_next(i)?;
    let rest: Vec<Expr> = repeat(0.., preceded(ws(keyword("AND")), cut_err(not))).parse_next(i)?;
    Ok(rest
        .into_iter()
        .fold(first, |a, b| Expr::And(Box::new(a), Box::new(b))))
}

fn expr(i: &mut &str) -> PResult<Expr> {
    let first = and.parse_next(i)?;
    let rest: Vec<Expr> = repeat(0.., preceded(ws(keyword("OR")), cut_err(and))).parse_next(i)?;
    Ok(rest
        .into_iter()
        .fold(first, |a, b| Expr::Or(Box::new(a), Box::new(b))))
}

fn order(i: &mut &str) -> PResult<Order> {
    let (field, dir) = preceded(
        (ws(keyword("ORDER")), ws(keyword("BY"))),
        cut_err((
            ws(word),
            opt(ws(alt((
                keyword("ASC").value(false),
                keyword("DESC").value(true),
            )))),
        )),
    )
    .parse_next(i)?;
    Ok(Order {
        field: field.to_string(),
        descending: dir.unwrap_or(false),
    })
}

fn query(i: &mut &str) -> PResult<Query> {
    let kind = preceded(
        ws(keyword("FIND")),
        cut_err(ws(word).context(label("what to find, e.g. decisions"))),
    )
    .parse_next(i)?;
    let filter = opt(preceded(ws(keyword("WHERE")), cut_err(expr))).parse_next(i)?;
    let order = opt(order).parse_next(i)?;
    let limit = opt(preceded(
        ws(keyword("LIMIT")),
        cut_err(
            ws(take_while(1.., |c: char| c.is_ascii_digit()))
                .try_map(str::parse::<usize>)
                .context(label("a whole number")),
        ),
    ))
    .parse_next(i)?;
    Ok(Query {
        kind: kind.to_string(),
        filter,
        order,
        limit,
    })
}

/// Parse a whole query; the error is `(column, message)` with columns counted in
/// characters from 1.
pub(crate) fn parse(text: &str) -> Result<Query, (usize, String)> {
    let parsed = terminated(query, multispace0).parse(text);
    parsed.map_err(|e| {
        let column = text[..e.offset()].chars().count() + 1;
        let expected = e.inner().to_string();
        let message = if expected.is_empty() {
            "unexpected text".to_string()
        } else {
            expected
        };
        (column, message)
    })
}
