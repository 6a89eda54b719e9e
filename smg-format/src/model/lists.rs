//! Lists that carry the schema's constraints on their length or items (an artifact's
//! [`super::Versions`], a node's [`super::RecentAccesses`], an embedding's
//! [`Vector`]): read as slices, changed only in ways that keep the constraint.

use super::checked::Refused;

/// What a list value offers besides its own constructors: read and changed in place
/// as a slice (which cannot change its length), converted back, and read by serde
/// only through `new`.
macro_rules! list_value {
    ($t:ident, $item:ty) => {
        impl std::ops::Deref for $t {
            type Target = [$item];
            fn deref(&self) -> &[$item] {
                &self.0
            }
        }

        impl std::ops::DerefMut for $t {
            fn deref_mut(&mut self) -> &mut [$item] {
                &mut self.0
            }
        }

        impl From<$t> for Vec<$item> {
            fn from(list: $t) -> Vec<$item> {
                list.0
            }
        }

        impl TryFrom<Vec<$item>> for $t {
            type Error = $crate::model::Refused;
            fn try_from(list: Vec<$item>) -> Result<Self, $crate::model::Refused> {
                $t::new(list)
            }
        }

        impl<'a> IntoIterator for &'a $t {
            type Item = &'a $item;
            type IntoIter = std::slice::Iter<'a, $item>;
            fn into_iter(self) -> Self::IntoIter {
                self.0.iter()
            }
        }

        impl<'a> IntoIterator for &'a mut $t {
            type Item = &'a mut $item;
            type IntoIter = std::slice::IterMut<'a, $item>;
            fn into_iter(self) -> Self::IntoIter {
                self.0.iter_mut()
            }
        }

        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                serde::Serialize::serialize(&self.0, s)
            }
        }

        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let list: Vec<$item> = serde::Deserialize::deserialize(d)?;
                $t::new(list).map_err(serde::de::Error::custom)
            }
        }
    };
}

/// An optional list read with no room to spare. serde grows a list it reads from room
/// for four items, so the one provenance most derived nodes hold would keep the room
/// of four (576 bytes instead of 144) for as long as the document lives: 72 MB at a
/// 100 MB file. Shrunk as soon as it is read, a list gives its room back before the
/// next is made, which then takes it.
pub(crate) struct Tight<T>(pub(crate) Option<Vec<T>>);

impl<'de, T: serde::Deserialize<'de>> serde::Deserialize<'de> for Tight<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let list: Option<Vec<T>> = serde::Deserialize::deserialize(d)?;
        Ok(Tight(list.map(|mut list| {
            list.shrink_to_fit();
            list
        })))
    }
}

/// An embedding's components: finite numbers (JSON has no NaN or infinity).
///
/// ```
/// use smg_format::model::Vector;
/// assert_eq!(Vector::new(vec![0.5, -1.0]).unwrap().len(), 2);
/// assert!(Vector::new(vec![f64::NAN]).is_err());
/// assert_eq!(*Vector::zeroing(vec![f64::NAN, 2.0]), [0.0, 2.0]);
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Vector(Vec<f64>);

impl Vector {
    /// The components in `list`, unless one is not a finite number.
    pub fn new(list: Vec<f64>) -> Result<Self, Refused> {
        if let Some(k) = list.iter().position(|x| !x.is_finite()) {
            return Err(Refused::new(format!(
                "component {k}: {} is not a JSON number",
                list[k]
            )));
        }
        Ok(Vector(list))
    }

    /// The components in `list`, where one that is not a finite number counts as 0
    /// (a computed vector).
    pub fn zeroing(mut list: Vec<f64>) -> Self {
        for x in list.iter_mut().filter(|x| !x.is_finite()) {
            *x = 0.0;
        }
        Vector(list)
    }
}

list_value!(Vector, f64);

pub(super) use list_value;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn serde_reads_only_what_the_constructors_make() {
        assert_eq!(
            serde_json::to_value(Vector::new(vec![1.5]).unwrap()).unwrap(),
            json!([1.5])
        );
        assert_eq!(
            *serde_json::from_value::<Vector>(json!([1, -2.5])).unwrap(),
            [1.0, -2.5]
        );
    }
}
