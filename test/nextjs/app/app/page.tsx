export default function Page() {
  return <p>evaltrace Next.js test app</p>;
}
