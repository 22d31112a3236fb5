/**
 * The JSON text of an object with more members added at its end: `fields` is
 * the JSON text of an object too. Lets an answer built from stored JSON text
 * (a bet's stored view) gain its per-request fields without being parsed and
 * serialized again. `{}` as fields leaves the object as it was.
 */
export function withJsonFields(objectJson: string, fieldsJson: string): string {
  if (fieldsJson.length <= 2) return objectJson;
  if (objectJson.length <= 2) return fieldsJson;
  return `${objectJson.slice(0, -1)},${fieldsJson.slice(1)}`;
}
